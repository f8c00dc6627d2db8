// The essay in the form editor: Rubric, Word limit, AI marking and Criteria.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('essay', {
    label: t('portal.editor.type.essay'),
    defaults: function () { return { rubric: '' }; },
    fields: function (q, path, ui) {
      return [K.rubric(q, path, ui, t('portal.editor.essay.rubricHint')),
        K.field(t('portal.editor.essay.maxWords'), K.bind(K.input(path + '.maxWords', { inputmode: 'numeric' }), q, 'maxWords', 'number', ui.changed), t('portal.editor.essay.maxWordsHint')),
        K.aiMarking(q, path, ui), K.criteria(q, path, ui)];
    },
  });
})();
