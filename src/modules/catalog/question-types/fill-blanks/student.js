// The fill-in-the-blanks question on the test page: a text field or a select per blank, in the text's lines;
// the answer is { blankId: text or optionId } of the blanks filled in (null when none is).
(() => {
  'use strict';
  const blanks = (fs) => fs.querySelectorAll('.blank');
  window.AssayQuestionTypes.register('fill_blanks', {
    read(fs) {
      const out = {};
      for (const el of blanks(fs)) if (el.value.trim() !== '') out[el.dataset.blankId] = el.value;
      return Object.keys(out).length > 0 ? out : null;
    },
    write(fs, value) {
      for (const el of blanks(fs)) el.value = (value && value[el.dataset.blankId]) || '';
    },
    typed: true,
  });
})();
