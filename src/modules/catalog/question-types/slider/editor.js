// The form editor's fields for slider: the scale (lowest, highest, step), the correct value and the tolerance.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var field = K.field, bind = K.bind, input = K.input;

  window.AssayEditorTypes.register('slider', {
    label: 'Slider',
    defaults: function () { return { min: 0, max: 100, step: 1, correct: 50, tolerance: 0 }; },
    fields: function (q, path, ui) {
      var f = function (key, label, hint) {
        return field(label, bind(input(path + '.' + key, { inputmode: 'decimal' }), q, key, 'number', ui.changed), hint);
      };
      return [
        f('min', 'Lowest value'),
        f('max', 'Highest value'),
        f('step', 'Step', 'The slider moves in steps of this size; it must divide the range.'),
        f('correct', 'Correct answer', 'A point of the scale: the lowest value plus a whole number of steps.'),
        f('tolerance', 'Tolerance', 'A value this far from the correct one, either side, still gets the points.'),
      ];
    },
  });
})();
