// The editor's form for one question of each type (docs/test-format.md):
// labels fixed by the authoring decisions (Prompt, Points, Option N,
// Option N is correct, Add option, Correct answer, Tolerance, Accepted
// answers (the short text type's editor.js), Rubric). ui.changed() saves; ui.structure(focus) redraws the form
// after an add, remove or move and puts the focus back where it belongs.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  // The menu's first types in their long-standing order, then every other registered type; each named by its
  // editor part's label (the catalogue's words).
  var FIRST = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'];
  var registered = window.AssayEditorTypes.list();
  var TYPES = FIRST.concat(registered.map(function (r) { return r[0]; }).filter(function (type) { return FIRST.indexOf(type) < 0; }))
    .map(function (type) { var impl = window.AssayEditorTypes.get(type); return [type, impl ? impl.label : type]; });
  var PROMPT_HINT = t('portal.editor.question.promptHint');

  function typeFields(q, path, ui) {
    var impl = window.AssayEditorTypes.get(q.type);
    return impl ? impl.fields(q, path, ui) : [];
  }

  // A composite question's parts, read-only: this form edits its prompt only, and a save sends the parts as they were.
  function compositeForm(q, path, n, ctx, ui) {
    var prompt = bind(textarea(path + '.prompt', 3), q, 'prompt', 'text', ui.changed);
    var names = {};
    TYPES.forEach(function (x) { names[x[0]] = x[1]; });
    var parts = el('ol', { className: 'composite-parts', 'data-path': path + '.parts' }, (q.parts || []).map(function (part, k) {
      return el('li', {}, [
        el('strong', { text: t('portal.editor.composite.part', { n: k + 1 }) }),
        el('span', { text: t('portal.editor.composite.partDetail', { type: names[part.type] || part.type, points: part.points, prompt: part.prompt }) }),
      ]);
    }));
    var box = el('fieldset', { className: 'editor-question', 'data-path': path, 'data-name': t('portal.editor.question.name', { n: n }) }, [
      el('legend', { text: t('portal.editor.question.legend', { n: n, type: t('portal.editor.type.composite') }) }),
      field(t('portal.editor.question.prompt'), prompt, PROMPT_HINT),
      ui.imageControl(prompt, q, 'prompt', t('portal.editor.question.srName', { n: n })),
      el('p', { className: 'hint', text: t('portal.editor.composite.points', { points: q.points }) }),
      el('p', { className: 'notice composite-note', text: t('portal.editor.composite.readOnly') }),
      parts,
    ]);
    box.appendChild(ctx.actions);
    return box;
  }

  // One question: its type, prompt (with images), points, its type's fields and its actions.
  function questionForm(q, path, n, ctx, ui) {
    if (q.type === 'composite') return compositeForm(q, path, n, ctx, ui);
    var type = select(path + '.type', TYPES, q.type);
    type.addEventListener('change', function () { K.changeType(q, type.value); ui.structure(path + '.type'); });
    var prompt = bind(textarea(path + '.prompt', 3), q, 'prompt', 'text', ui.changed);
    var typeName = (TYPES.filter(function (x) { return x[0] === q.type; })[0] || [q.type, q.type])[1];
    var box = el('fieldset', { className: 'editor-question', 'data-path': path, 'data-name': t('portal.editor.question.name', { n: n }) }, [
      el('legend', { text: t('portal.editor.question.legend', { n: n, type: typeName }) }),
      field(t('portal.editor.question.type'), type),
      field(t('portal.editor.question.prompt'), prompt, PROMPT_HINT),
      ui.imageControl(prompt, q, 'prompt', t('portal.editor.question.srName', { n: n })),
      field(t('portal.editor.question.points'), bind(input(path + '.points', { inputmode: 'decimal' }), q, 'points', 'number', ui.changed)),
      ctx.passage,
    ].concat(typeFields(q, path, ui)));
    box.appendChild(ctx.actions);
    return box;
  }

  window.AssayEditorQuestions = { questionForm: questionForm };
})();
