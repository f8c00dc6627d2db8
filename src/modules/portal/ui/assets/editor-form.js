// The editor's form: the test's settings, its sections (add, rename,
// reorder, delete, pool size, shuffle) and their questions (add, duplicate,
// reorder, move to another section, delete). A flat test (questions without
// sections) is edited as one list until Add section gives it sections.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var Q = window.AssayEditorQuestions;
  var P = window.AssayEditorPassages;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, select = K.select, button = K.button;

  function settings(c, ui) {
    // Absent means plain (the format's default); the select shows it as such.
    if (c.contentFormat === undefined) c.contentFormat = 'plain';
    return el('fieldset', { className: 'editor-settings' }, [
      el('legend', { text: t('portal.editor.settings.legend') }),
      field(t('portal.editor.settings.title'), bind(input('title'), c, 'title', 'text', ui.changed)),
      field(t('portal.editor.settings.description'), bind(textarea('description', 2), c, 'description', 'text', ui.changed), t('portal.editor.settings.descriptionHint')),
      field(t('portal.editor.settings.duration'), bind(input('durationMinutes', { inputmode: 'numeric' }), c, 'durationMinutes', 'number', ui.changed)),
      field(t('portal.editor.settings.proctoring'), bind(select('proctoring', [['none', t('portal.editor.settings.proctoringNone')], ['record', t('portal.editor.settings.proctoringRecord')], ['live_ai', t('portal.editor.settings.proctoringLive')]]), c, 'proctoring', 'text', ui.changed)),
      field(t('portal.editor.settings.marking'), bind(select('marking', [['auto', t('portal.editor.settings.markingAuto')], ['manual', t('portal.editor.settings.markingManual')], ['hybrid', t('portal.editor.settings.markingHybrid')]]), c, 'marking', 'text', ui.changed), t('portal.editor.settings.markingHint')),
      field(t('portal.editor.settings.resultVisibility'), bind(select('resultVisibility', [['immediate', t('portal.editor.settings.resultImmediate')], ['after_review', t('portal.editor.settings.resultAfterReview')]]), c, 'resultVisibility', 'text', ui.changed), t('portal.editor.settings.resultVisibilityHint')),
      field(t('portal.editor.settings.contentFormat'), bind(select('contentFormat', [['markdown', t('portal.editor.settings.formatMarkdown')], ['plain', t('portal.editor.settings.formatPlain')]]), c, 'contentFormat', 'text', ui.changed), t('portal.editor.settings.contentFormatHint')),
      field(t('portal.editor.settings.passPercent'), bind(input('passPercent', { inputmode: 'decimal' }), c, 'passPercent', 'optional-number', ui.changed), t('portal.editor.settings.passPercentHint')),
    ]);
  }

  // The places questions live in: each section's list, or the flat test's one list.
  function groups(c) {
    if (Array.isArray(c.sections)) {
      return c.sections.map(function (s, i) { s.questions = Array.isArray(s.questions) ? s.questions : []; return { section: s, list: s.questions, base: 'sections.' + i + '.questions', added: t('portal.editor.question.addedToSection', { n: i + 1 }) }; });
    }
    c.questions = Array.isArray(c.questions) ? c.questions : [];
    return [{ section: null, list: c.questions, base: 'questions', added: t('portal.editor.question.addedToTest') }];
  }

  function questionActions(c, all, g, gi, j, n, ui) {
    var q = g.list[j], path = g.base + '.' + j;
    var name = t('portal.editor.question.srName', { n: n });
    var actions = el('div', { className: 'entry-actions question-actions' }, [
      button(t('portal.editor.moveUp'), function () {
        if (j > 0) { K.move(g.list, j, j - 1); ui.structure(g.base + '.' + (j - 1) + '.type'); }
        else if (gi > 0) { g.list.splice(j, 1); all[gi - 1].list.push(q); ui.structure(all[gi - 1].base + '.' + (all[gi - 1].list.length - 1) + '.type'); }
      }, { sr: K.srAfterColon(name) }),
      button(t('portal.editor.moveDown'), function () {
        if (j < g.list.length - 1) { K.move(g.list, j, j + 1); ui.structure(g.base + '.' + (j + 1) + '.type'); }
        else if (gi < all.length - 1) { g.list.splice(j, 1); all[gi + 1].list.unshift(q); ui.structure(all[gi + 1].base + '.0.type'); }
      }, { sr: K.srAfterColon(name) }),
      button(t('portal.editor.question.duplicate'), function () {
        var copy = JSON.parse(JSON.stringify(q));
        delete copy.id;
        g.list.splice(j + 1, 0, copy);
        ui.structure(g.base + '.' + (j + 1) + '.type');
      }, { sr: K.srAfterSpace(name) }),
      button(t('portal.editor.question.delete'), function () {
        g.list.splice(j, 1);
        ui.structure(g.list.length ? g.base + '.' + Math.max(0, j - 1) + '.type' : 'add-question-' + gi);
        ui.say(t('portal.editor.question.deleted', { n: n }));
      }, { variant: 'danger', sr: K.srAfterSpace(name) }),
    ]);
    if (all.length > 1) {
      var to = select(path + '.section', all.map(function (x, k) { return [String(k), sectionName(k, x.section)]; }), String(gi));
      to.addEventListener('change', function () {
        var k = Number(to.value);
        if (k === gi) return;
        g.list.splice(j, 1);
        all[k].list.push(q);
        ui.structure(all[k].base + '.' + (all[k].list.length - 1) + '.type');
        ui.say(t('portal.editor.question.movedToSection', { n: k + 1 }));
      });
      actions.appendChild(field(t('portal.editor.question.section', { n: n }), to, null, 'inline-field'));
    }
    return actions;
  }

  function sectionFields(c, s, i, ui) {
    var base = 'sections.' + i;
    var n = i + 1;
    return [
      field(t('portal.editor.section.title', { n: n }), bind(input(base + '.title'), s, 'title', 'text', ui.changed)),
      field(t('portal.editor.section.instructions', { n: n }), bind(textarea(base + '.instructions', 2), s, 'instructions', 'optional-text', ui.changed), t('portal.editor.section.instructionsHint')),
      field(t('portal.editor.section.draw'), bind(input(base + '.draw', { inputmode: 'numeric' }), s, 'draw', 'number', ui.changed), t('portal.editor.section.drawHint')),
      checkField(t('portal.editor.section.shuffle', { n: n }), bind(el('input', { type: 'checkbox', 'data-path': base + '.shuffleQuestions' }), s, 'shuffleQuestions', 'bool', ui.changed)),
      el('div', { className: 'entry-actions' }, [
        button(t('portal.editor.section.moveUp'), function () { if (K.move(c.sections, i, i - 1)) ui.structure('sections.' + (i - 1) + '.title'); }, { sr: K.srAfterSpace(n) }),
        button(t('portal.editor.section.moveDown'), function () { if (K.move(c.sections, i, i + 1)) ui.structure('sections.' + (i + 1) + '.title'); }, { sr: K.srAfterSpace(n) }),
        button(t('portal.editor.section.delete'), function () {
          var count = s.questions.length;
          if (count > 0 && !window.confirm(t('portal.editor.section.confirmDelete', { n: n, count: count }))) return;
          c.sections.splice(i, 1);
          ui.structure(c.sections.length ? 'sections.' + Math.max(0, i - 1) + '.title' : 'add-section');
          ui.say(t('portal.editor.section.deleted', { n: n }));
        }, { variant: 'danger', sr: K.srAfterSpace(n) }),
      ]),
    ];
  }

  // "Section 2: Reading", or "Section 2" while it has no title.
  function sectionName(k, section) {
    return section && section.title ? t('portal.editor.section.nameTitled', { n: k + 1, title: section.title }) : t('portal.editor.section.name', { n: k + 1 });
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
        el('h2', { id: headingId, text: g.section ? sectionName(gi, g.section) : t('portal.editor.question.heading') }),
      ]);
      if (g.section) sectionFields(c, g.section, gi, ui).forEach(function (x) { region.appendChild(x); });
      if (g.list.length === 0) region.appendChild(el('p', { className: 'hint', text: t('portal.editor.question.none') }));
      g.list.forEach(function (q, j) {
        number += 1;
        region.appendChild(Q.questionForm(q, g.base + '.' + j, number, { actions: questionActions(c, all, g, gi, j, number, ui), passage: P.passageField(c, q, g.base + '.' + j, ui) }, ui));
      });
      var addQuestion = button(t('portal.editor.question.add'), function () {
        g.list.push(K.newQuestion());
        ui.structure(g.base + '.' + (g.list.length - 1) + '.type');
        ui.say(g.added);
      }, { variant: 'primary', focus: 'add-question-' + gi, sr: g.section ? t('portal.editor.question.addSrSection', { n: gi + 1 }) : '' });
      // A problem with the list itself ("add at least one question") is shown at this button (editor-problems.js).
      addQuestion.setAttribute('data-list', g.base);
      region.appendChild(addQuestion);
      form.appendChild(region);
    });
    form.appendChild(el('p', { className: 'add-section' }, [button(t('portal.editor.section.add'), function () {
      if (!Array.isArray(c.sections)) {
        c.sections = [{ title: t('portal.editor.section.name', { n: 1 }), questions: c.questions || [] }];
        delete c.questions;
      }
      c.sections.push({ title: t('portal.editor.section.name', { n: c.sections.length + 1 }), questions: [] });
      ui.structure('sections.' + (c.sections.length - 1) + '.title');
      ui.say(t('portal.editor.section.added', { n: c.sections.length }));
    }, { variant: 'secondary', focus: 'add-section' })]));
    form.querySelector('[data-focus="add-section"]').setAttribute('data-list', 'sections');
  }

  window.AssayEditorForm = { render: render };
})();
