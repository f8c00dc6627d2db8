// The form editor's fields for slider: the scale (lowest, highest, step), the correct value and the tolerance.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var field = K.field, bind = K.bind, input = K.input;

  window.AssayEditorTypes.register('slider', {
    label: t('portal.editor.type.slider'),
    defaults: function () { return { min: 0, max: 100, step: 1, correct: 50, tolerance: 0 }; },
    fields: function (q, path, ui) {
      var f = function (key, label, hint) {
        return field(label, bind(input(path + '.' + key, { inputmode: 'decimal' }), q, key, 'number', ui.changed), hint);
      };
      return [
        f('min', t('portal.editor.slider.min')),
        f('max', t('portal.editor.slider.max')),
        f('step', t('portal.editor.slider.step'), t('portal.editor.slider.stepHint')),
        f('correct', t('portal.editor.slider.correct'), t('portal.editor.slider.correctHint')),
        f('tolerance', t('portal.editor.slider.tolerance'), t('portal.editor.slider.toleranceHint')),
      ];
    },
  });
})();
