// The editor's passages (docs/authoring.md "Passages"): the test's shared
// texts, each with a title and a text, added and removed here, and a
// select labelled "Passage" on each question that names the one it shows.
// A passage that questions still name is not removed: the editor says which
// questions use it, so the author picks another passage (or none) for them first.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  // Every question of the draft with its number as the form shows it.
  function numberedQuestions(c) {
    var lists = Array.isArray(c.sections) ? c.sections.map(function (s) { return Array.isArray(s.questions) ? s.questions : []; }) : [Array.isArray(c.questions) ? c.questions : []];
    var out = [];
    lists.forEach(function (list) { list.forEach(function (q) { out.push({ q: q, n: out.length + 1 }); }); });
    return out;
  }

  function nameOf(p, k) { return p.title ? p.title : t('portal.editor.passage.name', { n: k + 1 }); }

  function panel(c, ui) {
    var passages = Array.isArray(c.passages) ? c.passages : [];
    var headingId = K.nextId('passages');
    var region = el('section', { className: 'editor-group editor-passages', 'aria-labelledby': headingId, 'data-path': 'passages' }, [
      el('h2', { id: headingId, text: t('portal.editor.passage.heading') }),
      el('p', { className: 'hint', text: t('portal.editor.passage.intro') }),
    ]);
    if (passages.length === 0) region.appendChild(el('p', { className: 'hint', text: t('portal.editor.passage.none') }));
    passages.forEach(function (p, k) {
      var n = k + 1, base = 'passages.' + k;
      var text = bind(textarea(base + '.text', 6), p, 'text', 'text', ui.changed);
      var refusal = el('p', { className: 'field-error', role: 'alert' });
      var box = el('fieldset', { className: 'editor-passage', 'data-path': base }, [
        el('legend', { text: t('portal.editor.passage.name', { n: n }) }),
        field(t('portal.editor.passage.title', { n: n }), bind(input(base + '.title'), p, 'title', 'optional-text', ui.changed), t('portal.editor.passage.titleHint')),
        field(t('portal.editor.passage.text', { n: n }), text, t('portal.editor.passage.textHint')),
        ui.imageControl(text, p, 'text', t('portal.editor.passage.srName', { n: n })),
        el('div', { className: 'entry-actions' }, [button(t('portal.editor.passage.remove'), function () {
          var users = numberedQuestions(c).filter(function (x) { return x.q.passageId === p.id; }).map(function (x) { return x.n; });
          if (users.length > 0) {
            var numbers = users.map(function (u) { return window.AssayI18n.number(u); });
            var list = window.Intl && Intl.ListFormat ? new Intl.ListFormat(window.AssayI18n.locale, { type: 'conjunction' }).format(numbers) : numbers.join(', ');
            refusal.textContent = t('portal.editor.passage.inUse', { count: users.length, questions: list });
            return;
          }
          passages.splice(k, 1);
          if (passages.length === 0) delete c.passages;
          ui.structure(passages.length ? 'passages.' + Math.max(0, k - 1) + '.text' : 'add-passage');
          ui.say(t('portal.editor.passage.removed', { n: n }));
        }, { variant: 'danger', sr: K.srAfterSpace(n) })]),
        refusal,
      ]);
      region.appendChild(box);
    });
    region.appendChild(button(t('portal.editor.passage.add'), function () {
      c.passages = passages;
      passages.push({ id: K.freshId(passages, 'passage'), text: '' });
      ui.structure('passages.' + (passages.length - 1) + '.text');
      ui.say(t('portal.editor.passage.added', { n: passages.length }));
    }, { variant: 'secondary', focus: 'add-passage' }));
    return region;
  }

  // The select on a question: None, or one of the test's passages.
  function passageField(c, q, path, ui) {
    var passages = Array.isArray(c.passages) ? c.passages : [];
    var options = [['', t('portal.editor.passage.noneOption')]].concat(passages.map(function (p, k) { return [p.id, nameOf(p, k)]; }));
    // A reference to a passage that is gone stays visible (the server names the problem) instead of silently clearing.
    if (q.passageId && !passages.some(function (p) { return p.id === q.passageId; })) options.push([q.passageId, t('portal.editor.passage.missing', { id: q.passageId })]);
    var s = select(path + '.passageId', options, q.passageId || '');
    s.addEventListener('change', function () {
      if (s.value) q.passageId = s.value; else delete q.passageId;
      ui.changed();
    });
    return field(t('portal.editor.passage.field'), s, passages.length ? t('portal.editor.passage.fieldHint') : t('portal.editor.passage.fieldHintNone'));
  }

  window.AssayEditorPassages = { panel: panel, passageField: passageField };
})();
