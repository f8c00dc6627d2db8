// The short-text question in the form editor: its accepted answers, one row per answer with its text and,
// behind "Options for answer N", its points (empty: the question's), whether capitals must match and an
// optional pattern; then Rubric, AI marking, Criteria and a parametrised question's fields (editor-parameters.js).
// An answer with nothing but its text is stored as a plain string, so answers written before entries existed
// read and save unchanged (docs/test-format.md).
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, checkField = K.checkField, input = K.input, button = K.button;

  var LIST_HINT = t('portal.editor.shortText.listHint');
  var POINTS_HINT = t('portal.editor.shortText.pointsHint');
  var PATTERN_HINT = t('portal.editor.shortText.patternHint');

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
      var typed = points.value.trim().replace(',', '.');
      // A half-typed number stays as text: the server names the problem next to the field.
      if (typed === '') delete r.points; else r.points = isNaN(Number(typed)) ? points.value : Number(typed);
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
      el('summary', { text: t('portal.editor.shortText.options', { n: n }) }),
      field(t('portal.editor.shortText.points', { n: n }), points, POINTS_HINT, 'narrow'),
      checkField(t('portal.editor.shortText.caseSensitive', { n: n }), exact),
      field(t('portal.editor.shortText.pattern', { n: n }), pattern, PATTERN_HINT),
    ]);
    return el('div', { className: 'entry', 'data-path': at }, [
      field(t('portal.editor.shortText.answer', { n: n }), text),
      options,
      el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
        rows.splice(k, 1);
        store(q, rows);
        ui.structure(rows.length ? base + '.' + Math.max(0, k - 1) + '.text' : base + '.add');
      }, { sr: K.srAfterSpace(t('portal.editor.shortText.answerName', { n: n })) })]),
    ]);
  }

  function acceptedAnswers(q, path, ui) {
    var base = path + '.acceptedAnswers';
    var rows = (q.acceptedAnswers || []).map(function (a) { return typeof a === 'string' ? { text: a } : Object.assign({}, a); });
    var list = el('div', { className: 'entry-list answer-list', 'data-path': base }, [el('h3', { text: t('portal.editor.shortText.accepted') }), el('p', { className: 'hint', text: LIST_HINT })]);
    rows.forEach(function (r, k) { list.appendChild(answerRow(q, rows, r, k, base, ui)); });
    list.appendChild(button(t('portal.editor.shortText.add'), function () {
      rows.push({ text: '' });
      store(q, rows);
      ui.structure(base + '.' + (rows.length - 1) + '.text');
    }, { focus: base + '.add' }));

    // The question's rule for answers that do not set their own; the rows show it, so they are drawn again.
    var caseBox = el('input', { type: 'checkbox', 'data-path': path + '.caseSensitive' });
    caseBox.checked = q.caseSensitive === true;
    caseBox.addEventListener('change', function () { q.caseSensitive = caseBox.checked; ui.structure(path + '.caseSensitive'); });
    return [list, checkField(t('portal.editor.shortText.caseDefault'), caseBox)];
  }

  window.AssayEditorTypes.register('short_text', {
    label: t('portal.editor.type.shortText'),
    defaults: function () { return { acceptedAnswers: [] }; },
    fields: function (q, path, ui) {
      return acceptedAnswers(q, path, ui).concat([
        K.rubric(q, path, ui, t('portal.editor.shortText.rubricHint')), K.aiMarking(q, path, ui), K.criteria(q, path, ui)])
        .concat(window.AssayEditorParameters.fields(q, path, ui));
    },
  });
})();
