// The editor's form: the test's settings, its sections (add, rename,
// reorder, delete, pool size, shuffle) and their questions (add, duplicate,
// reorder, move to another section, delete). A flat test (questions without
// sections) is edited as one list until Add section gives it sections.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var Q = window.AssayEditorQuestions;
  var P = window.AssayEditorPassages;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  function settings(c, ui) {
    // Absent means plain (the format's default); the select shows it as such.
    if (c.contentFormat === undefined) c.contentFormat = 'plain';
    return el('fieldset', { className: 'editor-settings' }, [
      el('legend', { text: 'Test settings' }),
      field('Title', bind(input('title'), c, 'title', 'text', ui.changed)),
      field('Description', bind(textarea('description', 2), c, 'description', 'text', ui.changed), 'Shown to candidates before they start.'),
      field('Duration (minutes)', bind(input('durationMinutes', { inputmode: 'numeric' }), c, 'durationMinutes', 'number', ui.changed)),
      field('Proctoring', bind(select('proctoring', [['none', 'None'], ['record', 'Record'], ['live_ai', 'Record with live warnings']]), c, 'proctoring', 'text', ui.changed)),
      field('Marking', bind(select('marking', [['auto', 'Automatic'], ['manual', 'By reviewers'], ['hybrid', 'Hybrid']]), c, 'marking', 'text', ui.changed), 'Automatic: the answer key marks everything. By reviewers: people mark every answer. Hybrid: the key marks what it can, reviewers the essays and files (which need By reviewers or Hybrid).'),
      field('Result visibility', bind(select('resultVisibility', [['immediate', 'At once'], ['after_review', 'After review']]), c, 'resultVisibility', 'text', ui.changed), 'At once: the candidate sees the result on submitting. After review: once marking is finished (needed for reviewer and hybrid marking).'),
      field('Text format', bind(select('contentFormat', [['markdown', 'Markdown'], ['plain', 'Plain text']]), c, 'contentFormat', 'text', ui.changed), 'Markdown renders formulas ($…$), images, lists, tables and code; plain text shows every character as typed.'),
      field('Pass mark (%)', bind(input('passPercent', { inputmode: 'decimal' }), c, 'passPercent', 'optional-number', ui.changed), 'Optional: leave empty for no pass or fail.'),
    ]);
  }

  // The places questions live in: each section's list, or the flat test's one list.
  function groups(c) {
    if (Array.isArray(c.sections)) {
      return c.sections.map(function (s, i) { s.questions = Array.isArray(s.questions) ? s.questions : []; return { section: s, list: s.questions, base: 'sections.' + i + '.questions', name: 'section ' + (i + 1) }; });
    }
    c.questions = Array.isArray(c.questions) ? c.questions : [];
    return [{ section: null, list: c.questions, base: 'questions', name: 'the test' }];
  }

  function questionActions(c, all, g, gi, j, n, ui) {
    var q = g.list[j], path = g.base + '.' + j;
    var label = ' question ' + n;
    var actions = el('div', { className: 'entry-actions question-actions' }, [
      button('Move up', function () {
        if (j > 0) { K.move(g.list, j, j - 1); ui.structure(g.base + '.' + (j - 1) + '.type'); }
        else if (gi > 0) { g.list.splice(j, 1); all[gi - 1].list.push(q); ui.structure(all[gi - 1].base + '.' + (all[gi - 1].list.length - 1) + '.type'); }
      }, { sr: ':' + label }),
      button('Move down', function () {
        if (j < g.list.length - 1) { K.move(g.list, j, j + 1); ui.structure(g.base + '.' + (j + 1) + '.type'); }
        else if (gi < all.length - 1) { g.list.splice(j, 1); all[gi + 1].list.unshift(q); ui.structure(all[gi + 1].base + '.0.type'); }
      }, { sr: ':' + label }),
      button('Duplicate', function () {
        var copy = JSON.parse(JSON.stringify(q));
        delete copy.id;
        g.list.splice(j + 1, 0, copy);
        ui.structure(g.base + '.' + (j + 1) + '.type');
      }, { sr: label }),
      button('Delete', function () {
        g.list.splice(j, 1);
        ui.structure(g.list.length ? g.base + '.' + Math.max(0, j - 1) + '.type' : 'add-question-' + gi);
        ui.say('Question ' + n + ' deleted.');
      }, { variant: 'danger', sr: label }),
    ]);
    if (all.length > 1) {
      var to = select(path + '.section', all.map(function (x, k) { return [String(k), 'Section ' + (k + 1) + (x.section && x.section.title ? ': ' + x.section.title : '')]; }), String(gi));
      to.addEventListener('change', function () {
        var k = Number(to.value);
        if (k === gi) return;
        g.list.splice(j, 1);
        all[k].list.push(q);
        ui.structure(all[k].base + '.' + (all[k].list.length - 1) + '.type');
        ui.say('Question moved to section ' + (k + 1) + '.');
      });
      actions.appendChild(field('Section of question ' + n, to, null, 'inline-field'));
    }
    return actions;
  }

  function sectionFields(c, s, i, ui) {
    var base = 'sections.' + i;
    var n = i + 1;
    return [
      field('Section ' + n + ' title', bind(input(base + '.title'), s, 'title', 'text', ui.changed)),
      field('Section ' + n + ' instructions', bind(textarea(base + '.instructions', 2), s, 'instructions', 'optional-text', ui.changed), 'Optional, shown under the section title.'),
      field('Questions drawn for each candidate', bind(input(base + '.draw', { inputmode: 'numeric' }), s, 'draw', 'number', ui.changed), 'Optional: a pool. Each candidate gets this many of the section\'s questions, chosen at random; every question of a pool must be worth the same points.'),
      checkField('Shuffle the questions of section ' + n, bind(el('input', { type: 'checkbox', 'data-path': base + '.shuffleQuestions' }), s, 'shuffleQuestions', 'bool', ui.changed)),
      el('div', { className: 'entry-actions' }, [
        button('Move section up', function () { if (K.move(c.sections, i, i - 1)) ui.structure('sections.' + (i - 1) + '.title'); }, { sr: ' ' + n }),
        button('Move section down', function () { if (K.move(c.sections, i, i + 1)) ui.structure('sections.' + (i + 1) + '.title'); }, { sr: ' ' + n }),
        button('Delete section', function () {
          var count = s.questions.length;
          if (count > 0 && !window.confirm('Delete section ' + n + ' and its ' + count + (count === 1 ? ' question?' : ' questions?'))) return;
          c.sections.splice(i, 1);
          ui.structure(c.sections.length ? 'sections.' + Math.max(0, i - 1) + '.title' : 'add-section');
          ui.say('Section ' + n + ' deleted.');
        }, { variant: 'danger', sr: ' ' + n }),
      ]),
    ];
  }

  function render(form, c, ui) {
    form.textContent = '';
    form.appendChild(settings(c, ui));
    form.appendChild(P.panel(c, ui));
    var all = groups(c);
    var number = 0;
    all.forEach(function (g, gi) {
      var headingId = K.nextId('section');
      var region = el('section', { className: 'editor-group', 'aria-labelledby': headingId, 'data-path': g.section ? 'sections.' + gi : 'questions' }, [
        el('h2', { id: headingId, text: g.section ? 'Section ' + (gi + 1) + (g.section.title ? ': ' + g.section.title : '') : 'Questions' }),
      ]);
      if (g.section) sectionFields(c, g.section, gi, ui).forEach(function (x) { region.appendChild(x); });
      if (g.list.length === 0) region.appendChild(el('p', { className: 'hint', text: 'No questions yet.' }));
      g.list.forEach(function (q, j) {
        number += 1;
        region.appendChild(Q.questionForm(q, g.base + '.' + j, number, { actions: questionActions(c, all, g, gi, j, number, ui), passage: P.passageField(c, q, g.base + '.' + j, ui) }, ui));
      });
      region.appendChild(button('Add question', function () {
        g.list.push(K.newQuestion());
        ui.structure(g.base + '.' + (g.list.length - 1) + '.type');
        ui.say('Question added to ' + g.name + '.');
      }, { variant: 'primary', focus: 'add-question-' + gi, sr: g.section ? ' to section ' + (gi + 1) : '' }));
      form.appendChild(region);
    });
    form.appendChild(el('p', { className: 'add-section' }, [button('Add section', function () {
      if (!Array.isArray(c.sections)) {
        c.sections = [{ title: 'Section 1', questions: c.questions || [] }];
        delete c.questions;
      }
      c.sections.push({ title: 'Section ' + (c.sections.length + 1), questions: [] });
      ui.structure('sections.' + (c.sections.length - 1) + '.title');
      ui.say('Section ' + c.sections.length + ' added.');
    }, { variant: 'secondary', focus: 'add-section' })]));
  }

  window.AssayEditorForm = { render: render };
})();
