// The multiple choice question in the form editor: its options (each with "Option N is correct" as a checkbox
// and "Keep option N in place when shuffling"), Shuffle the options and Partial credit.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var check = function (q, path, ui, label, key) {
    return K.checkField(label, K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.' + key }), q, key, 'bool', ui.changed));
  };
  window.AssayEditorTypes.register('multiple_choice', {
    label: t('portal.editor.type.multipleChoice'),
    defaults: function () { return { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }], correctOptionIds: [] }; },
    fields: function (q, path, ui) {
      return [K.choiceOptions(q, path, ui, true), check(q, path, ui, t('portal.editor.shuffleOptions'), 'shuffleOptions'), check(q, path, ui, t('portal.editor.multipleChoice.partialCredit'), 'partialCredit')];
    },
  });
})();
