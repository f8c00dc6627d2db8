// The editor's form for one question of each type (docs/test-format.md):
// labels fixed by the authoring decisions (Prompt, Points, Option N,
// Option N is correct, Add option, Correct answer, Tolerance, Accepted
// answers (the short text type's editor.js), Rubric). ui.changed() saves; ui.structure(focus) redraws the form
// after an add, remove or move and puts the focus back where it belongs.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  var TYPES = [
    ['single_choice', 'Single choice'], ['multiple_choice', 'Multiple choice'], ['short_text', 'Short text'], ['numeric', 'Numeric'],
    ['essay', 'Essay'], ['matching', 'Matching'], ['ordering', 'Ordering'], ['fill_blanks', 'Fill in the blanks'], ['file_upload', 'File upload'],
  ];
  // A type moved into its folder keeps its place in the menu; a new registered type follows the built-in ones.
  TYPES = TYPES.concat(window.AssayEditorTypes.list().filter(function (r) {
    return !TYPES.some(function (t) { return t[0] === r[0]; });
  }).map(function (r) { return [r[0], r[1].label]; }));
  var PROMPT_HINT = 'Markdown: **bold**, lists, tables, `code`, https links. Formulas between $…$ (inline) or $$…$$ (display), in LaTeX. Images with Add image.';

  function typeFields(q, path, ui) {
    var impl = window.AssayEditorTypes.get(q.type);
    return impl ? impl.fields(q, path, ui) : [];
  }

  // A composite question's parts, read-only: this form edits its prompt only, and a save sends the parts as they were.
  function compositeForm(q, path, n, ctx, ui) {
    var prompt = bind(textarea(path + '.prompt', 3), q, 'prompt', 'text', ui.changed);
    var names = {};
    TYPES.forEach(function (t) { names[t[0]] = t[1]; });
    var parts = el('ol', { className: 'composite-parts', 'data-path': path + '.parts' }, (q.parts || []).map(function (part, k) {
      var pts = part.points === 1 ? '1 point' : part.points + ' points';
      return el('li', {}, [el('strong', { text: 'Part ' + (k + 1) + ': ' }), el('span', { text: (names[part.type] || part.type) + ', ' + pts + '. ' + part.prompt })]);
    }));
    var box = el('fieldset', { className: 'editor-question', 'data-path': path }, [
      el('legend', { text: 'Question ' + n + ' (Composite)' }),
      field('Prompt', prompt, PROMPT_HINT),
      ui.imageControl(prompt, q, 'prompt', 'question ' + n),
      el('p', { className: 'hint', text: 'Points: ' + q.points + ', the sum of the parts.' }),
      el('p', { className: 'notice composite-note', text: 'The parts of a composite question are shown here read-only: edit them in the JSON view. Saving this form keeps them unchanged.' }),
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
    var typeName = (TYPES.filter(function (t) { return t[0] === q.type; })[0] || [q.type, q.type])[1];
    var box = el('fieldset', { className: 'editor-question', 'data-path': path }, [
      el('legend', { text: 'Question ' + n + ' (' + typeName + ')' }),
      field('Question type', type),
      field('Prompt', prompt, PROMPT_HINT),
      ui.imageControl(prompt, q, 'prompt', 'question ' + n),
      field('Points', bind(input(path + '.points', { inputmode: 'decimal' }), q, 'points', 'number', ui.changed)),
      ctx.passage,
    ].concat(typeFields(q, path, ui)));
    box.appendChild(ctx.actions);
    return box;
  }

  window.AssayEditorQuestions = { questionForm: questionForm };
})();
