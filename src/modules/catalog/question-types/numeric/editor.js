// The numeric question in the form editor: Correct answer and Tolerance, then a parametrised question's fields (editor-parameters.js).
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('numeric', {
    label: t('portal.editor.type.numeric'),
    defaults: function () { return { tolerance: 0 }; },
    fields: function (q, path, ui) {
      return [K.field(t('portal.editor.numeric.answer'), K.bind(K.input(path + '.answer', { inputmode: 'decimal' }), q, 'answer', 'number', ui.changed)),
        K.field(t('portal.editor.numeric.tolerance'), K.bind(K.input(path + '.tolerance', { inputmode: 'decimal' }), q, 'tolerance', 'number', ui.changed), t('portal.editor.numeric.toleranceHint'))]
        .concat(window.AssayEditorParameters.fields(q, path, ui));
    },
  });
})();
