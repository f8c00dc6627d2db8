// The draft's problems in words, at their fields, and listed above the form (docs/authoring.md "Problems").
// The server names each problem's field path and, for a schema problem, the rule it broke (keyword and bound:
// minLength 1, minItems 2, maximum 100, …); this file words it with the field's own label, so no validator
// wording reaches the page. A problem of the authoring rules (already in words) keeps the server's message.
// A rule on a list (too few or too many entries, or the list missing) goes to the list's Add button, in a
// sentence naming what to add; a field not drawn in the form (JSON-only) goes to the nearest group with no
// other field's label.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n ? window.AssayI18n.t : null;

  // The lists the form draws, by the key that ends their path, and the catalogue key of "add at least N …".
  var LISTS = {
    questions: 'portal.editor.problem.tooFew.questions', sections: 'portal.editor.problem.tooFew.sections',
    options: 'portal.editor.problem.tooFew.options', acceptedAnswers: 'portal.editor.problem.tooFew.answers',
    blanks: 'portal.editor.problem.tooFew.blanks', items: 'portal.editor.problem.tooFew.items',
    criteria: 'portal.editor.problem.tooFew.criteria', accept: 'portal.editor.problem.tooFew.fileTypes',
  };
  var ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

  function segments(field) { return String(field || '').split('.'); }
  function lastKey(field) { var s = segments(field); return s[s.length - 1]; }
  // The rule breaks a list as a whole: too few or too many entries, or the list left out.
  function onList(p) {
    var r = p.rule;
    if (!r) return false;
    if (r.keyword === 'minItems' || r.keyword === 'maxItems') return true;
    return r.keyword === 'required' && Object.prototype.hasOwnProperty.call(LISTS, lastKey(p.field));
  }
  // sections.2.questions → 3; anything else → null.
  function sectionOf(field) {
    var m = /^sections\.(\d+)\.(questions|title)$/.exec(String(field || ''));
    return m ? Number(m[1]) + 1 : null;
  }

  // A whole sentence, or null when the problem reads as "field: what to do".
  function sentence(p, tr) {
    var r = p.rule, key = lastKey(p.field);
    if (onList(p)) {
      var limit = r.keyword === 'required' ? 1 : r.limit;
      if (r.keyword === 'maxItems') return tr('portal.editor.problem.tooMany', { limit: limit });
      if (key === 'questions' && sectionOf(p.field)) return tr('portal.editor.problem.tooFew.sectionQuestions', { limit: limit, n: sectionOf(p.field) });
      return tr(LISTS[key] || 'portal.editor.problem.tooFew.entries', { limit: limit });
    }
    var empty = (r.keyword === 'minLength' && r.limit === 1) || r.keyword === 'required';
    if (empty && p.field === 'title') return tr('portal.editor.problem.testTitle');
    if (empty && key === 'title' && sectionOf(p.field)) return tr('portal.editor.problem.sectionTitle', { n: sectionOf(p.field) });
    if (r.keyword === 'required' && (key === 'correctOptionId' || key === 'correctOptionIds')) return tr('portal.editor.problem.markCorrect');
    if (r.keyword === 'discriminator') return tr('portal.editor.problem.chooseType');
    return null;
  }

  // What to do about a field, after its label: "enter some text", "enter 100 or less".
  function advice(p, tr) {
    var r = p.rule;
    // The largest file is stored in bytes and typed in MB.
    if (lastKey(p.field) === 'maxBytes' && typeof r.limit === 'number') r = { keyword: r.keyword === 'minimum' ? 'exclusiveMinimum' : r.keyword, limit: r.keyword === 'minimum' ? 0 : r.limit / 1048576 };
    // "number or null" (an optional number): the kind to type is the one that is not null.
    var type = String(r.type || '').split(' or ').filter(function (x) { return x !== 'null'; })[0];
    switch (r.keyword) {
      case 'minLength': return tr('portal.editor.problem.minLength', { limit: r.limit });
      case 'maxLength': return tr('portal.editor.problem.maxLength', { limit: r.limit });
      case 'minimum': return tr('portal.editor.problem.minimum', { limit: r.limit });
      case 'exclusiveMinimum': return tr('portal.editor.problem.exclusiveMinimum', { limit: r.limit });
      case 'maximum': return tr('portal.editor.problem.maximum', { limit: r.limit });
      case 'exclusiveMaximum': return tr('portal.editor.problem.exclusiveMaximum', { limit: r.limit });
      case 'multipleOf': return tr('portal.editor.problem.multipleOf', { limit: r.limit });
      case 'required': return tr('portal.editor.problem.required');
      case 'pattern': return tr(r.pattern === ID_PATTERN ? 'portal.editor.problem.idPattern' : 'portal.editor.problem.pattern');
      case 'enum': case 'const': return tr('portal.editor.problem.enum', { allowed: (r.allowed || []).join(', ') });
      case 'type': return tr('portal.editor.problem.type', { type: /^(number|integer|string|boolean|array|object)$/.test(type || '') ? type : 'other' });
      case 'format': return tr('portal.editor.problem.format', { format: /^(uri|email|date-time|date)$/.test(r.format || '') ? r.format.replace('-', '') : 'other' });
      case 'additionalProperties': return tr('portal.editor.problem.unknownField');
      case 'minProperties': return tr('portal.editor.problem.minProperties');
      case 'maxProperties': return tr('portal.editor.problem.maxProperties');
      case 'not': return tr('portal.editor.problem.notBoth');
      default: return tr('portal.editor.problem.invalid');
    }
  }

  /**
   * The words of problem `p` ({ field, message, rule? }) as the editor shows them, at its field and in the list:
   * `place.label` is the field's own label (null when the form draws no field of its own for it), `place.where`
   * the question it is in ("Question 2"). `tr` formats a catalogue key (window.AssayI18n.t).
   */
  function words(p, place, tr) {
    tr = tr || t;
    var where = place && place.where, label = place && place.label;
    var text = p.rule ? sentence(p, tr) : null;
    // A list typed in one labelled field (accepted answers, one per line) is named by its label too.
    if (text && label && onList(p)) where = where ? tr('portal.editor.problems.whereField', { where: where, field: label }) : label;
    if (text) return where ? tr('portal.editor.problems.sentenceIn', { where: where, sentence: text }) : text;
    var message = p.rule ? advice(p, tr) : p.message;
    if (!label) return where ? tr('portal.editor.problems.item', { field: where, message: message }) : message;
    return where ? tr('portal.editor.problems.itemIn', { where: where, field: label, message: message }) : tr('portal.editor.problems.item', { field: label, message: message });
  }

  // ---- where each problem goes in the form

  function byPath(form, attr, path) { return form.querySelector('[' + attr + '="' + path.replace(/"/g, '') + '"]'); }
  function isControl(n) { return n && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(n.tagName); }
  // A list's own Add button: its data-list, or the last button of the list's container that is not an entry's.
  function addButton(form, path) {
    var tagged = byPath(form, 'data-list', path);
    if (tagged) return tagged;
    var list = byPath(form, 'data-path', path);
    if (!list) return null;
    var buttons = Array.prototype.filter.call(list.children, function (c) { return c.tagName === 'BUTTON'; });
    return buttons.length ? buttons[buttons.length - 1] : null;
  }

  // { control (focusable or null), holder (where the note goes), exact (the control is the problem's own field) }.
  function place(form, p) {
    if (onList(p)) {
      var add = addButton(form, p.field);
      // A button (Add question, Add option) takes the note after it; a group of ticks (file types) inside it.
      if (add && isControl(add)) return { control: add, holder: add.parentNode, exact: false };
      if (add) return { control: add.querySelector('input, select, textarea, button'), holder: add, exact: false };
    }
    var own = byPath(form, 'data-path', p.field);
    if (own) {
      var focusable = isControl(own) ? own : own.querySelector('input, select, textarea, button');
      return { control: focusable, holder: focusable ? (focusable.closest('.field') || focusable.parentNode) : own, exact: isControl(own) };
    }
    var parts = segments(p.field);
    while (parts.length > 1) {
      parts.pop();
      var up = byPath(form, 'data-path', parts.join('.'));
      // A control holding the entry (a list typed one per line) is its field; a group is not any one field.
      if (up) {
        var group = isControl(up) ? (up.closest('.field') || up.parentNode) : up;
        return { control: isControl(up) ? up : up.querySelector('input, select, textarea, button'), holder: group, exact: isControl(up) };
      }
    }
    return { control: byPath(form, 'data-path', 'title'), holder: null, exact: false };
  }

  // Rules seen with each problem: a publish refusal names the same problems in field and message only.
  var known = {};
  function withRule(p) {
    var id = p.field + '\u0000' + p.message;
    if (p.rule) known[id] = p.rule;
    return p.rule || !known[id] ? p : { field: p.field, message: p.message, rule: known[id] };
  }

  function show(form, summaryBox, problems, announce) {
    Array.prototype.forEach.call(form.querySelectorAll('.field-error.generated'), function (n) { n.remove(); });
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (n) {
      n.removeAttribute('aria-invalid');
      var d = (n.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x.indexOf('err-') !== 0; }).join(' ');
      if (d) n.setAttribute('aria-describedby', d); else n.removeAttribute('aria-describedby');
    });
    summaryBox.textContent = '';
    if (!problems || !problems.length) return;
    var items = K.el('ul');
    problems.forEach(function (raw, i) {
      var p = withRule(raw);
      var at = place(form, p);
      var control = at.control;
      var label = at.exact && control.labels && control.labels[0] ? control.labels[0].textContent : null;
      var group = (control || at.holder) && (control || at.holder).closest('fieldset.editor-question');
      var text = words(p, { label: label, where: group ? group.getAttribute('data-name') : null });
      var id = 'err-' + i;
      var note = K.el('p', { className: 'field-error generated', id: id, text: text });
      if (control) {
        if (!control.id) control.id = K.nextId('f');
        if (at.exact && control.tagName !== 'BUTTON') control.setAttribute('aria-invalid', 'true');
        control.setAttribute('aria-describedby', ((control.getAttribute('aria-describedby') || '') + ' ' + id).trim());
      }
      if (at.holder) at.holder.appendChild(note);
      items.appendChild(K.el('li', null, [K.el('a', { href: '#' + (control ? control.id : ''), onclick: function (e) { e.preventDefault(); if (control) control.focus(); }, text: text })]));
    });
    var box = K.el('div', { className: 'error-summary', id: 'problem-summary', tabindex: '-1', role: announce ? 'alert' : null }, [
      K.el('h2', { text: t('portal.editor.problems.heading', { count: problems.length }) }), items,
    ]);
    summaryBox.appendChild(box);
    if (announce) box.focus();
  }

  window.AssayEditorProblems = { words: words, show: show };
})();
