// The numeric question on the test page: the text as typed (the server parses it when marking).
(() => {
  'use strict';
  window.AssayQuestionTypes.register('numeric', {
    read(fs) {
      const text = fs.querySelector('input[type=text]').value;
      return text.trim() === '' ? null : text;
    },
    write(fs, value) {
      fs.querySelector('input[type=text]').value = value === null ? '' : value;
    },
    typed: false,
  });
})();
