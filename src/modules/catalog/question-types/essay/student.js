// The essay on the test page: the text as typed, and its word count kept up to date (question-fields.js counts).
(() => {
  'use strict';
  window.AssayQuestionTypes.register('essay', {
    read(fs) {
      const text = fs.querySelector('textarea').value;
      return text.trim() === '' ? null : text;
    },
    write(fs, value) {
      fs.querySelector('textarea').value = value === null ? '' : value;
      window.assayFields.updateWordCount(fs);
    },
    typed: true,
  });
})();
