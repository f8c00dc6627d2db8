// The single choice question on the test page: one radio button per option; the answer is the checked option's id.
(() => {
  'use strict';
  window.AssayQuestionTypes.register('single_choice', {
    read(fs) {
      const checked = fs.querySelector('input[type=radio]:checked');
      return checked ? checked.value : null;
    },
    write(fs, value) {
      for (const input of fs.querySelectorAll('input[type=radio]')) input.checked = input.value === value;
    },
    typed: false,
  });
})();
