// The editor's passages (docs/authoring.md "Passages"): the test's shared
// texts, each with a title and a text, added and removed here, and a
// select labelled "Passage" on each question that names the one it shows.
// A passage that questions still name is not removed: the editor says which
// questions use it, so the author picks another passage (or none) for them first.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el, field = K.field, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  // Every question of the draft with its number as the form shows it.
  function numberedQuestions(c) {
    var lists = Array.isArray(c.sections) ? c.sections.map(function (s) { return Array.isArray(s.questions) ? s.questions : []; }) : [Array.isArray(c.questions) ? c.questions : []];
    var out = [];
    lists.forEach(function (list) { list.forEach(function (q) { out.push({ q: q, n: out.length + 1 }); }); });
    return out;
  }

  function nameOf(p, k) { return p.title ? p.title : 'Passage ' + (k + 1); }

  function panel(c, ui) {
    var passages = Array.isArray(c.passages) ? c.passages : [];
    var headingId = K.nextId('passages');
    var region = el('section', { className: 'editor-group editor-passages', 'aria-labelledby': headingId, 'data-path': 'passages' }, [
      el('h2', { id: headingId, text: 'Passages' }),
      el('p', { className: 'hint', text: 'A passage is a text several questions share (a reading, a table, a source). It is shown beside each question that chooses it, once per page.' }),
    ]);
    if (passages.length === 0) region.appendChild(el('p', { className: 'hint', text: 'No passages yet.' }));
    passages.forEach(function (p, k) {
      var n = k + 1, base = 'passages.' + k;
      var text = bind(textarea(base + '.text', 6), p, 'text', 'text', ui.changed);
      var refusal = el('p', { className: 'field-error', role: 'alert' });
      var box = el('fieldset', { className: 'editor-passage', 'data-path': base }, [
        el('legend', { text: 'Passage ' + n }),
        field('Passage ' + n + ' title', bind(input(base + '.title'), p, 'title', 'optional-text', ui.changed), 'Optional: names the passage for candidates (otherwise "Passage").'),
        field('Passage ' + n + ' text', text, 'Written like prompts (Markdown when the test is Markdown).'),
        ui.imageControl(text, p, 'text', 'passage ' + n),
        el('div', { className: 'entry-actions' }, [button('Remove passage', function () {
          var users = numberedQuestions(c).filter(function (x) { return x.q.passageId === p.id; }).map(function (x) { return x.n; });
          if (users.length > 0) {
            refusal.textContent = 'Not removed: ' + (users.length === 1 ? 'question ' + users[0] + ' uses' : 'questions ' + users.slice(0, -1).join(', ') + ' and ' + users[users.length - 1] + ' use') +
              ' this passage. Choose another passage (or none) for ' + (users.length === 1 ? 'it' : 'them') + ' first.';
            return;
          }
          passages.splice(k, 1);
          if (passages.length === 0) delete c.passages;
          ui.structure(passages.length ? 'passages.' + Math.max(0, k - 1) + '.text' : 'add-passage');
          ui.say('Passage ' + n + ' removed.');
        }, { variant: 'danger', sr: ' ' + n })]),
        refusal,
      ]);
      region.appendChild(box);
    });
    region.appendChild(button('Add passage', function () {
      c.passages = passages;
      passages.push({ id: K.freshId(passages, 'passage'), text: '' });
      ui.structure('passages.' + (passages.length - 1) + '.text');
      ui.say('Passage ' + passages.length + ' added.');
    }, { variant: 'secondary', focus: 'add-passage' }));
    return region;
  }

  // The select on a question: None, or one of the test's passages.
  function passageField(c, q, path, ui) {
    var passages = Array.isArray(c.passages) ? c.passages : [];
    var options = [['', 'None']].concat(passages.map(function (p, k) { return [p.id, nameOf(p, k)]; }));
    // A reference to a passage that is gone stays visible (the server names the problem) instead of silently clearing.
    if (q.passageId && !passages.some(function (p) { return p.id === q.passageId; })) options.push([q.passageId, q.passageId + ' (missing)']);
    var s = select(path + '.passageId', options, q.passageId || '');
    s.addEventListener('change', function () {
      if (s.value) q.passageId = s.value; else delete q.passageId;
      ui.changed();
    });
    return field('Passage', s, passages.length ? 'Shown beside the question.' : 'Add a passage above to show one beside this question.');
  }

  window.AssayEditorPassages = { panel: panel, passageField: passageField };
})();
