// The matching question on the test page: one select of the choices per stem; the answer is { stemId: choiceId }
// of the stems matched (null when none is).
(() => {
  'use strict';
  const selects = (fs) => fs.querySelectorAll('select[data-stem-id]');
  window.AssayQuestionTypes.register('matching', {
    read(fs) {
      const out = {};
      for (const el of selects(fs)) if (el.value.trim() !== '') out[el.dataset.stemId] = el.value;
      return Object.keys(out).length > 0 ? out : null;
    },
    write(fs, value) {
      for (const el of selects(fs)) el.value = (value && value[el.dataset.stemId]) || '';
    },
    typed: false,
  });
})();
