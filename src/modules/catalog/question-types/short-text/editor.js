// The short-text question in the form editor: its accepted answers, one row per answer with its text and,
// behind "Options for answer N", its points (empty: the question's), whether capitals must match and an
// optional pattern; then Rubric, AI marking, Criteria and a parametrised question's fields (editor-parameters.js).
// An answer with nothing but its text is stored as a plain string, so answers written before entries existed
// read and save unchanged (docs/test-format.md).
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, checkField = K.checkField, input = K.input, button = K.button;

  var LIST_HINT = 'A student gets the points of the best answer they match. Spaces at the ends and doubled spaces do not matter.';
  var POINTS_HINT = 'Empty: full points. Fewer points give partial credit.';
  var PATTERN_HINT = 'Optional: the whole answer must fit this pattern instead. colou?r takes color or colour; [Cc] either letter. Capitals count as written; the answer above must fit it.';

  // The plainest form of each row: a string when it only has a text.
  function store(q, rows) {
    q.acceptedAnswers = rows.map(function (r) {
      if (r.points === undefined && r.caseSensitive === undefined && r.pattern === undefined) return r.text;
      var entry = { text: r.text };
      if (r.points !== undefined) entry.points = r.points;
      if (r.caseSensitive !== undefined) entry.caseSensitive = r.caseSensitive;
      if (r.pattern !== undefined) entry.pattern = r.pattern;
      return entry;
    });
  }

  function answerRow(q, rows, r, k, base, ui) {
    var n = k + 1, at = base + '.' + k;
    var changed = function () { store(q, rows); ui.changed(); };

    var text = input(at + '.text');
    text.value = r.text || '';
    text.addEventListener('input', function () { r.text = text.value; changed(); });

    var points = input(at + '.points', { inputmode: 'decimal' });
    points.value = r.points === undefined ? '' : String(r.points);
    points.addEventListener('input', function () {
      var t = points.value.trim().replace(',', '.');
      // A half-typed number stays as text: the server names the problem next to the field.
      if (t === '') delete r.points; else r.points = isNaN(Number(t)) ? points.value : Number(t);
      changed();
    });

    var exact = el('input', { type: 'checkbox', 'data-path': at + '.caseSensitive' });
    var questionCase = q.caseSensitive === true;
    exact.checked = r.pattern !== undefined || (r.caseSensitive !== undefined ? r.caseSensitive : questionCase);
    exact.disabled = r.pattern !== undefined;
    exact.addEventListener('change', function () {
      // Only what differs from the question is stored; the same as the question follows it.
      if (exact.checked === questionCase) delete r.caseSensitive; else r.caseSensitive = exact.checked;
      changed();
    });

    var pattern = input(at + '.pattern', { spellcheck: 'false', autocapitalize: 'off' });
    pattern.value = r.pattern || '';
    pattern.addEventListener('input', function () {
      if (pattern.value === '') delete r.pattern;
      else {
        r.pattern = pattern.value;
        delete r.caseSensitive;
      }
      exact.disabled = r.pattern !== undefined;
      if (r.pattern !== undefined) exact.checked = true;
      changed();
    });

    var options = el('details', { className: 'answer-options', open: r.points !== undefined || r.caseSensitive !== undefined || r.pattern !== undefined }, [
      el('summary', { text: 'Options for answer ' + n }),
      field('Answer ' + n + ' points', points, POINTS_HINT, 'narrow'),
      checkField('Answer ' + n + ' is case-sensitive', exact),
      field('Answer ' + n + ' pattern', pattern, PATTERN_HINT),
    ]);
    return el('div', { className: 'entry', 'data-path': at }, [
      field('Answer ' + n, text),
      options,
      el('div', { className: 'entry-actions' }, [button('Remove', function () {
        rows.splice(k, 1);
        store(q, rows);
        ui.structure(rows.length ? base + '.' + Math.max(0, k - 1) + '.text' : base + '.add');
      }, { sr: ' answer ' + n })]),
    ]);
  }

  function acceptedAnswers(q, path, ui) {
    var base = path + '.acceptedAnswers';
    var rows = (q.acceptedAnswers || []).map(function (a) { return typeof a === 'string' ? { text: a } : Object.assign({}, a); });
    var list = el('div', { className: 'entry-list answer-list', 'data-path': base }, [el('h4', { text: 'Accepted answers' }), el('p', { className: 'hint', text: LIST_HINT })]);
    rows.forEach(function (r, k) { list.appendChild(answerRow(q, rows, r, k, base, ui)); });
    list.appendChild(button('Add answer', function () {
      rows.push({ text: '' });
      store(q, rows);
      ui.structure(base + '.' + (rows.length - 1) + '.text');
    }, { focus: base + '.add' }));

    // The question's rule for answers that do not set their own; the rows show it, so they are drawn again.
    var caseBox = el('input', { type: 'checkbox', 'data-path': path + '.caseSensitive' });
    caseBox.checked = q.caseSensitive === true;
    caseBox.addEventListener('change', function () { q.caseSensitive = caseBox.checked; ui.structure(path + '.caseSensitive'); });
    return [list, checkField('Case-sensitive (answers without their own setting)', caseBox)];
  }

  window.AssayEditorTypes.register('short_text', {
    label: 'Short text',
    defaults: function () { return { acceptedAnswers: [] }; },
    fields: function (q, path, ui) {
      return acceptedAnswers(q, path, ui).concat([
        K.rubric(q, path, ui, 'Optional: for reviewers and AI marking of answers that match none.'), K.aiMarking(q, path, ui), K.criteria(q, path, ui)])
        .concat(window.AssayEditorParameters.fields(q, path, ui));
    },
  });
})();
