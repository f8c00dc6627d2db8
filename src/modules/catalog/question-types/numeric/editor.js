// The numeric question in the form editor: Correct answer and Tolerance, then a parametrised question's fields (editor-parameters.js).
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  window.AssayEditorTypes.register('numeric', {
    label: 'Numeric',
    defaults: function () { return { tolerance: 0 }; },
    fields: function (q, path, ui) {
      return [K.field('Correct answer', K.bind(K.input(path + '.answer', { inputmode: 'decimal' }), q, 'answer', 'number', ui.changed)),
        K.field('Tolerance', K.bind(K.input(path + '.tolerance', { inputmode: 'decimal' }), q, 'tolerance', 'number', ui.changed), 'An answer this far from the correct one, either side, still gets the points.')]
        .concat(window.AssayEditorParameters.fields(q, path, ui));
    },
  });
})();
