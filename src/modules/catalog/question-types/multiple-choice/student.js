// The multiple choice question on the test page: one checkbox per option; the answer is the checked options' ids.
(() => {
  'use strict';
  window.AssayQuestionTypes.register('multiple_choice', {
    read(fs) {
      const ids = [...fs.querySelectorAll('input[type=checkbox]:checked')].map((i) => i.value);
      return ids.length > 0 ? ids : null;
    },
    write(fs, value) {
      const chosen = new Set(Array.isArray(value) ? value : []);
      for (const input of fs.querySelectorAll('input[type=checkbox]')) input.checked = chosen.has(input.value);
    },
    typed: false,
  });
})();
