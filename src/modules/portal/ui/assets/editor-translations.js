// The form editor's Translations panel (docs/authoring.md "Translations"): the test's language, the
// languages it is translated into, and for one of them every translatable text beside its source, each
// flagged Missing, Out of date (its source changed since it was translated) or Translated. Which texts
// translate is the server's word (the page's #editor-data and every save's answer carry `translatable`),
// so the rules live in one place; the panel only finds each path's text in the draft. It writes into the
// draft's `translations` and is saved with the rest of the draft by test-editor.js.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el;
  function T(key, values) { return window.AssayI18n.t(key, values); }
  // Keys written whole, so the page's message list and its check (test/portal/script-messages.test.ts) can find them.
  var FIELD = { title: 'portal.editor.translations.field.title', description: 'portal.editor.translations.field.description' };
  var FLAG = { missing: 'portal.editor.translations.missing', stale: 'portal.editor.translations.stale', current: 'portal.editor.translations.current' };
  function isObj(v) { return typeof v === 'object' && v !== null && !Array.isArray(v); }

  // ---- a flat path (`questions.q1.options.a.text`) in a locale's nested texts, as translation-store.ts reads them
  function split(path) {
    var s = path.split('.');
    if (s[0] === 'sections' || s[0] === 'passages' || s[0] === 'questions') return { kind: s[0], id: s[1], field: s.slice(2).join('.') };
    return { kind: 'test', field: path };
  }
  function getText(t, path) {
    if (!isObj(t)) return '';
    var p = split(path);
    var v = p.kind === 'test' ? t[p.field] : isObj(t[p.kind]) && isObj(t[p.kind][p.id]) ? t[p.kind][p.id][p.field] : undefined;
    return typeof v === 'string' ? v : '';
  }
  // An emptied text is taken out (a translation's texts are never empty): the candidate reads the source.
  function setText(t, path, text) {
    var p = split(path);
    if (p.kind === 'test') { if (text) t[p.field] = text; else delete t[p.field]; return; }
    if (text) {
      if (!isObj(t[p.kind])) t[p.kind] = {};
      if (!isObj(t[p.kind][p.id])) t[p.kind][p.id] = {};
      t[p.kind][p.id][p.field] = text;
      return;
    }
    if (!isObj(t[p.kind]) || !isObj(t[p.kind][p.id])) return;
    delete t[p.kind][p.id][p.field];
    if (!Object.keys(t[p.kind][p.id]).length) delete t[p.kind][p.id];
    if (!Object.keys(t[p.kind]).length) delete t[p.kind];
  }
  function countTexts(t) {
    var n = 0;
    (function walk(v) { if (typeof v === 'string' && v) n += 1; else if (isObj(v)) Object.keys(v).forEach(function (k) { walk(v[k]); }); })(t);
    return n;
  }

  // ---- where a path points in the draft: an element named by its id, or by its place when the list has no ids (translatable.ts)
  function elementAt(list, seg) {
    if (!Array.isArray(list)) return null;
    for (var i = 0; i < list.length; i++) if (isObj(list[i]) && list[i].id === seg) return { value: list[i], index: i };
    var ids = list.some(function (e) { return isObj(e) && typeof e.id === 'string'; });
    if (ids || !/^\d+$/.test(seg) || Number(seg) >= list.length) return null;
    return { value: list[Number(seg)], index: Number(seg) };
  }
  function valueAt(root, segs) {
    var at = root;
    for (var i = 0; i < segs.length; i++) {
      if (Array.isArray(at)) { var found = elementAt(at, segs[i]); at = found ? found.value : undefined; }
      else if (isObj(at) && Object.prototype.hasOwnProperty.call(at, segs[i])) at = at[segs[i]];
      else return undefined;
    }
    return at;
  }
  function questionsOf(c) {
    var flat = Array.isArray(c.questions) ? c.questions : [];
    if (flat.length) return flat;
    var out = [];
    (Array.isArray(c.sections) ? c.sections : []).forEach(function (s) { if (isObj(s) && Array.isArray(s.questions)) out = out.concat(s.questions); });
    return out;
  }

  // The source text at a path and the words naming it ("Question 3 option 2").
  function describePath(c, path) {
    var p = split(path);
    if (p.kind === 'test') return { text: c[p.field], label: T(FIELD[p.field]) };
    var list = p.kind === 'questions' ? questionsOf(c) : c[p.kind];
    var owner = elementAt(Array.isArray(list) ? list : [], p.id);
    if (!owner) return null;
    var segs = p.field.split('.');
    var text = valueAt(owner.value, segs);
    var n = owner.index + 1;
    if (p.kind !== 'questions') return { text: text, label: T(p.kind === 'sections' ? 'portal.editor.translations.field.section' : 'portal.editor.translations.field.passage', { n: n, field: p.field }) };
    var at = owner.value, part = null;
    if (segs[0] === 'parts' && segs.length > 2) {
      var found = elementAt(at.parts, segs[1]);
      if (!found) return null;
      part = found.index + 1; at = found.value; segs = segs.slice(2);
    }
    var label;
    if (segs.length === 3 && Array.isArray(at[segs[0]])) {
      var item = elementAt(at[segs[0]], segs[1]);
      label = T(part ? 'portal.editor.translations.field.partItem' : 'portal.editor.translations.field.questionItem', { n: n, part: part, list: segs[0], k: item ? item.index + 1 : segs[1] });
    } else if (!part && segs.length === 5 && segs[0] === 'blanks') {
      var blank = elementAt(at.blanks, segs[1]);
      var option = blank ? elementAt(blank.value.options, segs[3]) : null;
      label = T('portal.editor.translations.field.questionBlankOption', { n: n, blank: blank ? blank.index + 1 : segs[1], k: option ? option.index + 1 : segs[3] });
    } else label = T(part ? 'portal.editor.translations.field.partField' : 'portal.editor.translations.field.question', { n: n, part: part, field: segs.join('.') });
    return { text: text, label: label };
  }

  // Sections, passages and questions the form made have no ids until publishing; a translation names
  // what it translates by id, so once the test has translations each of them is given one before saving.
  function giveIds(c) {
    if (!isObj(c) || !isObj(c.translations) || !Object.keys(c.translations).length) return;
    function give(list, prefix, all) {
      (list || []).forEach(function (x) { if (isObj(x) && typeof x.id !== 'string') x.id = K.freshId(all || list, prefix); });
    }
    if (Array.isArray(c.sections)) give(c.sections, 's');
    if (Array.isArray(c.passages)) give(c.passages, 'passage');
    var all = (Array.isArray(c.questions) ? c.questions : []).concat(Array.isArray(c.sections) ? c.sections.reduce(function (acc, s) { return isObj(s) && Array.isArray(s.questions) ? acc.concat(s.questions) : acc; }, []) : []);
    give(all, 'q', all);
  }

  function create(opts) {
    var data = opts.data;
    var locales = data.locales || [];
    var paths = data.translatable || [];
    var status = data.translationStatus || {};
    var base = isObj(data.content) && isObj(data.content.translations) ? JSON.parse(JSON.stringify(data.content.translations)) : {};
    var content = {};
    var shown = null;
    var rows = {};
    var root = el('section', { className: 'editor-group translations', 'data-path': 'translations', 'aria-labelledby': 'translations-heading' });
    var live = el('p', { className: 'sr-only', role: 'status' });

    function info(tag) {
      for (var i = 0; i < locales.length; i++) if (locales[i].tag === tag) return locales[i];
      return { tag: tag, name: tag, native: tag, dir: 'ltr' };
    }
    function optionName(l) { return l.name === l.native ? l.name : l.name + ' (' + l.native + ')'; }
    function targets() { return isObj(content.translations) ? Object.keys(content.translations) : []; }
    function own() { return typeof content.language === 'string' && content.language ? content.language : 'en'; }
    function say(text) { live.textContent = text; }

    // The texts to translate now: the server's paths, each found in the draft as it is (a text deleted since the save is left out).
    function texts() {
      return paths.map(function (path) { var d = describePath(content, path); return d && typeof d.text === 'string' && d.text ? { path: path, text: d.text, label: d.label } : null; }).filter(Boolean);
    }
    // Out of date: the server found its source changed since it was translated, and it is still the text the server judged.
    function flagOf(tag, path) {
      var text = getText(content.translations[tag], path);
      if (!text) return 'missing';
      var stale = status[tag] && status[tag].stale.indexOf(path) >= 0;
      return stale && text === getText(base[tag], path) ? 'stale' : 'current';
    }
    function countsOf(tag) {
      var list = texts();
      var done = list.filter(function (r) { return getText(content.translations[tag], r.path) !== ''; }).length;
      var stale = list.filter(function (r) { return flagOf(tag, r.path) === 'stale'; }).length;
      return T('portal.editor.translations.counts', { translated: done, total: list.length, stale: stale });
    }
    function showFlag(node, tag, path) {
      var kind = flagOf(tag, path);
      node.className = 'translation-flag badge flag-' + kind;
      node.textContent = T(FLAG[kind]);
    }
    function refreshCounts(tag) {
      Array.prototype.forEach.call(root.querySelectorAll('[data-counts="' + tag + '"]'), function (n) { n.textContent = countsOf(tag); });
    }

    function languageField() {
      var sel = el('select', { 'data-path': 'language' });
      var choices = [['', T('portal.editor.translations.languageNotStated')]];
      var current = typeof content.language === 'string' ? content.language : '';
      var others = targets();
      locales.forEach(function (l) { if (others.indexOf(l.tag) < 0) choices.push([l.tag, optionName(l)]); });
      if (current && !choices.some(function (o) { return o[0] === current; })) choices.push([current, T('portal.editor.translations.languageTag', { tag: current })]);
      choices.forEach(function (o) { sel.appendChild(el('option', { value: o[0], text: o[1] })); });
      sel.value = current;
      sel.addEventListener('change', function () {
        if (sel.value) content.language = sel.value; else delete content.language;
        opts.changed();
        build();
      });
      return K.field(T('portal.editor.translations.language'), sel, T('portal.editor.translations.languageHint'));
    }

    function localeList() {
      var list = targets();
      if (!list.length) return el('p', { text: T('portal.editor.translations.none') });
      return el('div', null, [
        el('h3', { text: T('portal.editor.translations.locales') }),
        el('ul', { className: 'translation-locales' }, list.map(function (tag) {
          var l = info(tag);
          var edit = K.button(T('portal.editor.translations.edit', { language: l.name }), function () { shown = tag; build(); focusEditor(); });
          edit.setAttribute('aria-pressed', String(tag === shown));
          var remove = K.button(T('portal.editor.translations.remove', { language: l.name }), function () {
            var n = countTexts(content.translations[tag]);
            if (n > 0 && !window.confirm(T('portal.editor.translations.removeConfirm', { language: l.name, count: n }))) return;
            delete content.translations[tag];
            if (!Object.keys(content.translations).length) delete content.translations;
            if (shown === tag) shown = null;
            opts.changed();
            build();
            say(T('portal.editor.translations.removed', { language: l.name }));
            var next = root.querySelector('[data-focus="translation-add"]') || root.querySelector('[data-path="language"]');
            if (next) next.focus();
          }, { variant: 'danger' });
          return el('li', { 'data-path': 'translations.' + tag }, [
            el('span', { className: 'translation-locale-name', text: l.name }),
            el('span', { className: 'translation-counts', 'data-counts': tag, text: countsOf(tag) }),
            el('span', { className: 'entry-actions' }, [edit, remove]),
          ]);
        })),
      ]);
    }

    function addField() {
      var list = targets();
      var candidates = locales.filter(function (l) { return l.tag !== own() && list.indexOf(l.tag) < 0; });
      if (!candidates.length || list.length >= 20) return null;
      var sel = el('select', { 'data-focus': 'translation-add-language' });
      candidates.forEach(function (l) { sel.appendChild(el('option', { value: l.tag, text: optionName(l) })); });
      var add = K.button(T('portal.editor.translations.addButton'), function () {
        var tag = sel.value;
        if (!isObj(content.translations)) content.translations = {};
        content.translations[tag] = {};
        giveIds(content);
        shown = tag;
        opts.changed();
        build();
        say(T('portal.editor.translations.added', { language: info(tag).name }));
        focusEditor();
      }, { variant: 'primary', focus: 'translation-add' });
      return el('div', { className: 'field-row translation-add' }, [K.field(T('portal.editor.translations.add'), sel, T('portal.editor.translations.addHint')), add]);
    }

    function row(tag, l, r) {
      var flag = el('p', { id: K.nextId('flag') });
      var ta = el('textarea', { 'data-path': 'translations.' + tag + '.' + r.path, lang: tag, dir: l.dir, rows: String(Math.min(8, Math.max(2, Math.ceil(r.text.length / 50)))), 'aria-describedby': flag.id });
      ta.id = K.nextId('f');
      ta.value = getText(content.translations[tag], r.path);
      showFlag(flag, tag, r.path);
      ta.addEventListener('input', function () {
        setText(content.translations[tag], r.path, ta.value);
        showFlag(flag, tag, r.path);
        refreshCounts(tag);
        opts.changed();
      });
      var lang = typeof content.language === 'string' && content.language ? info(content.language) : null;
      var source = el('div', { className: 'source-text', lang: lang ? lang.tag : null, dir: lang ? lang.dir : 'auto', text: r.text });
      rows[r.path] = { flag: flag, source: source };
      return el('div', { className: 'translation-row' }, [
        el('div', { className: 'translation-source' }, [el('p', { className: 'translation-label', text: lang ? T('portal.editor.translations.sourceIn', { field: r.label, language: lang.name }) : T('portal.editor.translations.source', { field: r.label }) }), source]),
        el('div', { className: 'translation-target field' }, [el('label', { for: ta.id, text: T('portal.editor.translations.target', { field: r.label, language: l.name }) }), flag, ta]),
      ]);
    }

    function localeEditor(tag) {
      var l = info(tag);
      var list = texts();
      rows = {};
      var box = el('div', { className: 'translation-editor', 'data-rows': list.map(function (r) { return r.path; }).join(' ') }, [
        el('h3', { id: 'translation-editor-heading', tabindex: '-1', text: T('portal.editor.translations.localeHeading', { language: l.name }) }),
        el('p', { className: 'translation-counts', 'data-counts': tag, text: countsOf(tag) }),
        el('p', { className: 'hint', text: T('portal.editor.translations.unsavedRows') }),
      ]);
      if (!list.length) box.appendChild(el('p', { text: T('portal.editor.translations.nothing') }));
      list.forEach(function (r) { box.appendChild(row(tag, l, r)); });
      return box;
    }

    function focusEditor() {
      var first = root.querySelector('.translation-editor textarea') || root.querySelector('#translation-editor-heading');
      if (first) first.focus();
    }

    // Rebuilt in place: the control that had the focus (and its caret) has it again.
    function build() {
      var a = document.activeElement;
      var kept = a && root.contains(a) ? { path: a.getAttribute('data-path'), key: a.getAttribute('data-focus'), start: a.selectionStart, end: a.selectionEnd } : null;
      if (shown && targets().indexOf(shown) < 0) shown = null;
      if (!shown && targets().length === 1) shown = targets()[0];
      root.textContent = '';
      root.appendChild(el('h2', { id: 'translations-heading', text: T('portal.editor.translations.heading') }));
      root.appendChild(el('p', { className: 'hint', text: T('portal.editor.translations.intro') }));
      root.appendChild(languageField());
      root.appendChild(localeList());
      var add = addField();
      if (add) root.appendChild(add);
      if (shown) root.appendChild(localeEditor(shown));
      root.appendChild(live);
      if (!kept) return;
      var back = kept.path ? root.querySelector('[data-path="' + kept.path + '"]') : kept.key ? root.querySelector('[data-focus="' + kept.key + '"]') : null;
      if (!back) return;
      back.focus();
      if (typeof kept.start === 'number' && back.setSelectionRange) try { back.setSelectionRange(kept.start, kept.end); } catch (e) { /* not a text control */ }
    }

    return {
      // The panel over the draft's content (called whenever the form is drawn).
      panel: function (c) { content = c; build(); return root; },
      // Before a save: ids for what a translation must name.
      prepare: giveIds,
      // A save's (or a load's) answer: the texts that translate now and how far each locale is.
      saved: function (view) {
        paths = view.translatable || paths;
        status = view.translationStatus || {};
        base = isObj(view.content) && isObj(view.content.translations) ? JSON.parse(JSON.stringify(view.content.translations)) : {};
        if (!root.isConnected) return;
        var editor = root.querySelector('.translation-editor');
        var now = texts().map(function (r) { return r.path; }).join(' ');
        // The same rows: their sources and flags change in place, so typing in one is never interrupted.
        if (shown && editor && editor.getAttribute('data-rows') === now) {
          texts().forEach(function (r) { var n = rows[r.path]; if (n) { n.source.textContent = r.text; showFlag(n.flag, shown, r.path); } });
          targets().forEach(refreshCounts);
        } else build();
      },
    };
  }

  window.AssayEditorTranslations = { create: create };
})();
