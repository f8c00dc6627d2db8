// The essay in the form editor: Rubric, Word limit, AI marking and Criteria.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  window.AssayEditorTypes.register('essay', {
    label: 'Essay',
    defaults: function () { return { rubric: '' }; },
    fields: function (q, path, ui) {
      return [K.rubric(q, path, ui, 'Shown to reviewers (and the model) when marking.'),
        K.field('Word limit', K.bind(K.input(path + '.maxWords', { inputmode: 'numeric' }), q, 'maxWords', 'number', ui.changed), 'Optional guidance shown to the candidate.'),
        K.aiMarking(q, path, ui), K.criteria(q, path, ui)];
    },
  });
})();
