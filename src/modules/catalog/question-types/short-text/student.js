// The short-text question on the test page: the text as typed (the server compares it with the accepted answers).
(() => {
  'use strict';
  window.AssayQuestionTypes.register('short_text', {
    read(fs) {
      const text = fs.querySelector('input[type=text]').value;
      return text.trim() === '' ? null : text;
    },
    write(fs, value) {
      fs.querySelector('input[type=text]').value = value === null ? '' : value;
    },
    typed: true,
  });
})();
