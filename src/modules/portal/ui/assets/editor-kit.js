// The test editor's building blocks: labelled controls bound to a place in
// the draft (each carries data-path, the field path the server's problems
// use), lists with add, remove and move, and the defaults of each question
// type. test-editor-questions.js builds the questions from them and
// test-editor.js the page.
(function () {
  'use strict';
  var t = window.AssayI18n.t;

  var uid = 0;
  function nextId(prefix) { uid += 1; return prefix + '-' + uid; }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] === undefined || attrs[k] === null || attrs[k] === false) continue;
        if (k === 'text') node.textContent = attrs[k];
        else if (k === 'className') node.className = attrs[k];
        else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), attrs[k]);
        else node.setAttribute(k, attrs[k] === true ? '' : attrs[k]);
      }
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return node;
  }

  function srOnly(text) { return el('span', { className: 'sr-only', text: text }); }

  // A labelled field: the label, an optional hint, the control. The control gets an id and aria-describedby.
  function field(label, control, hint, extraClass) {
    if (!control.id) control.id = nextId('f');
    var hintNode = null;
    if (hint) {
      hintNode = el('p', { className: 'hint', id: control.id + '-hint', text: hint });
      control.setAttribute('aria-describedby', hintNode.id);
    }
    return el('div', { className: 'field' + (extraClass ? ' ' + extraClass : '') }, [el('label', { for: control.id, text: label }), hintNode, control]);
  }

  function checkField(label, control) {
    if (!control.id) control.id = nextId('f');
    return el('div', { className: 'field check' }, [control, el('label', { for: control.id, text: label })]);
  }

  // Reads a control into obj[key] on every input, in the kind's shape; changed() tells the page.
  function bind(control, obj, key, kind, changed) {
    var v = obj[key];
    if (kind === 'bool') control.checked = v === true;
    else if (kind === 'lines') control.value = Array.isArray(v) ? v.join('\n') : '';
    else if (kind === 'mb') control.value = typeof v === 'number' ? String(Math.round((v / 1048576) * 100) / 100) : '';
    else control.value = v === undefined || v === null ? '' : String(v);
    var handler = function () {
      var raw = control.value;
      if (kind === 'bool') obj[key] = control.checked;
      else if (kind === 'lines') obj[key] = raw.split('\n').map(function (s) { return s.trim(); }).filter(function (s) { return s !== ''; });
      else if (kind === 'number' || kind === 'optional-number' || kind === 'mb') {
        var typed = raw.trim().replace(',', '.');
        if (typed === '') { if (kind === 'number') delete obj[key]; else if (kind === 'mb') delete obj[key]; else obj[key] = null; }
        else {
          var n = Number(typed);
          // A half-typed number stays as text: the server names the problem next to the field.
          obj[key] = isNaN(n) ? raw : kind === 'mb' ? Math.round(n * 1048576) : n;
        }
      } else if (kind === 'optional-text') {
        if (raw === '') delete obj[key]; else obj[key] = raw;
      } else obj[key] = raw;
      changed();
    };
    control.addEventListener(kind === 'bool' || control.tagName === 'SELECT' ? 'change' : 'input', handler);
    return control;
  }

  function input(path, attrs) { return el('input', Object.assign({ type: 'text', 'data-path': path }, attrs || {})); }
  function textarea(path, rows) { return el('textarea', { 'data-path': path, rows: String(rows || 3) }); }
  function select(path, options, value) {
    var s = el('select', { 'data-path': path });
    options.forEach(function (o) { s.appendChild(el('option', { value: o[0], text: o[1] })); });
    if (value !== undefined && value !== null) s.value = value;
    return s;
  }

  function button(label, onClick, opts) {
    opts = opts || {};
    return el('button', { type: 'button', className: 'button ' + (opts.variant || 'secondary') + ' small', 'data-focus': opts.focus, onclick: onClick }, [label, opts.sr ? srOnly(opts.sr) : null]);
  }

  // An id not yet used in the list: prefix + the first free number.
  function freshId(list, prefix) {
    var used = {};
    (list || []).forEach(function (x) { if (x && typeof x.id === 'string') used[x.id] = true; });
    for (var n = 1; ; n++) if (!used[prefix + n]) return prefix + n;
  }

  function move(list, from, to) {
    if (to < 0 || to >= list.length) return false;
    var item = list.splice(from, 1)[0];
    list.splice(to, 0, item);
    return true;
  }

  // The hidden words after a visible button label that name what it acts on: "Move up" + ": Option 2", "Remove" + " option 2".
  function srAfterColon(name) { return t('portal.editor.srAfterColon', { name: name }); }
  function srAfterSpace(name) { return t('portal.editor.srAfterSpace', { name: name }); }

  // A list of { id, text } entries: one text field each, with remove (and move when ordered). `label(n)` names an
  // entry's field ("Option 2"), `srName(n)` the entry inside a sentence ("option 2"; the label when absent).
  function entryList(p, ui) {
    var list = p.owner[p.key] || (p.owner[p.key] = []);
    var wrap = el('div', { className: 'entry-list', 'data-path': p.path });
    list.forEach(function (entry, k) {
      var n = k + 1;
      var row = el('div', { className: 'entry' });
      row.appendChild(field(p.label(n), bind(input(p.path + '.' + k + '.text'), entry, 'text', 'text', ui.changed)));
      if (p.extra) p.extra(row, entry, k, n);
      var actions = el('div', { className: 'entry-actions' });
      if (p.ordered) {
        actions.appendChild(button(t('portal.editor.moveUp'), function () { if (move(list, k, k - 1)) ui.structure(p.path + '.' + (k - 1) + '.text'); }, { sr: srAfterColon(p.label(n)) }));
        actions.appendChild(button(t('portal.editor.moveDown'), function () { if (move(list, k, k + 1)) ui.structure(p.path + '.' + (k + 1) + '.text'); }, { sr: srAfterColon(p.label(n)) }));
      }
      actions.appendChild(button(t('portal.editor.remove'), function () {
        list.splice(k, 1);
        if (p.onRemove) p.onRemove(entry);
        ui.structure(list.length ? p.path + '.' + Math.max(0, k - 1) + '.text' : p.addFocus);
      }, { sr: srAfterSpace(p.srName ? p.srName(n) : p.label(n)) }));
      row.appendChild(actions);
      wrap.appendChild(row);
    });
    wrap.appendChild(button(p.addLabel, function () {
      list.push({ id: freshId(list, p.idPrefix), text: '' });
      ui.structure(p.path + '.' + (list.length - 1) + '.text');
    }, { focus: p.addFocus, sr: p.addSr }));
    return wrap;
  }

  function choiceOptions(q, path, ui, multiple) {
    var radioName = nextId('correct');
    return entryList({
      owner: q, key: 'options', path: path + '.options', idPrefix: 'o', label: function (n) { return t('portal.editor.option.label', { n: n }); }, srName: function (n) { return t('portal.editor.option.name', { n: n }); },
      addLabel: t('portal.editor.option.add'), addFocus: path + '.add-option',
      extra: function (row, option, k, n) {
        var box = el('input', { type: multiple ? 'checkbox' : 'radio', name: radioName, 'data-path': path + (multiple ? '.correctOptionIds' : '.correctOptionId') });
        box.checked = multiple ? (q.correctOptionIds || []).indexOf(option.id) >= 0 : q.correctOptionId === option.id;
        box.addEventListener('change', function () {
          if (multiple) {
            var ids = (q.correctOptionIds || []).filter(function (id) { return id !== option.id; });
            if (box.checked) ids.push(option.id);
            q.correctOptionIds = q.options.map(function (o) { return o.id; }).filter(function (id) { return ids.indexOf(id) >= 0; });
          } else if (box.checked) q.correctOptionId = option.id;
          ui.changed();
        });
        row.appendChild(checkField(t('portal.editor.option.correct', { n: n }), box));
        var fixed = bind(el('input', { type: 'checkbox', 'data-path': path + '.options.' + k + '.fixed' }), option, 'fixed', 'bool', ui.changed);
        row.appendChild(checkField(t('portal.editor.option.fixed', { n: n }), fixed));
      },
      onRemove: function (option) {
        if (multiple) q.correctOptionIds = (q.correctOptionIds || []).filter(function (id) { return id !== option.id; });
        else if (q.correctOptionId === option.id) delete q.correctOptionId;
      },
    }, ui);
  }

  function aiMarking(q, path, ui) {
    var mode = select(path + '.aiMarking', [['', t('portal.editor.ai.off')], ['suggest', t('portal.editor.ai.suggest')], ['decide', t('portal.editor.ai.decide')]], q.aiMarking ? q.aiMarking.mode : '');
    mode.addEventListener('change', function () {
      if (mode.value === '') delete q.aiMarking;
      else q.aiMarking = { mode: mode.value, minConfidence: q.aiMarking ? q.aiMarking.minConfidence : 0.8 };
      ui.structure(path + '.aiMarking');
    });
    var parts = [field(t('portal.editor.ai.label'), mode, t('portal.editor.ai.hint'))];
    if (q.aiMarking) {
      parts.push(field(t('portal.editor.ai.minConfidence'), bind(input(path + '.aiMarking.minConfidence', { inputmode: 'decimal' }), q.aiMarking, 'minConfidence', 'number', ui.changed), t('portal.editor.ai.minConfidenceHint')));
    }
    return el('div', { className: 'subgroup' }, parts);
  }

  function criteria(q, path, ui) {
    var list = q.criteria || [];
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.criteria' }, [el('p', { className: 'hint', text: t('portal.editor.criteria.hint') })]);
    list.forEach(function (c, k) {
      var n = k + 1, base = path + '.criteria.' + k;
      wrap.appendChild(el('div', { className: 'entry' }, [
        field(t('portal.editor.criteria.name', { n: n }), bind(input(base + '.criterion'), c, 'criterion', 'text', ui.changed)),
        field(t('portal.editor.criteria.points', { n: n }), bind(input(base + '.points', { inputmode: 'decimal' }), c, 'points', 'number', ui.changed)),
        field(t('portal.editor.criteria.description', { n: n }), bind(textarea(base + '.description', 2), c, 'description', 'text', ui.changed)),
        el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () { list.splice(k, 1); if (!list.length) delete q.criteria; ui.structure(path + '.add-criterion'); }, { sr: srAfterSpace(t('portal.editor.criteria.srName', { n: n })) })]),
      ]));
    });
    wrap.appendChild(button(t('portal.editor.criteria.add'), function () {
      q.criteria = list;
      list.push({ criterion: '', points: 1, description: '' });
      ui.structure(path + '.criteria.' + (list.length - 1) + '.criterion');
    }, { focus: path + '.add-criterion' }));
    return wrap;
  }

  function rubric(q, path, ui, hint) {
    return field(t('portal.editor.rubric'), bind(textarea(path + '.rubric', 4), q, 'rubric', 'optional-text', ui.changed), hint);
  }

  // The registered question types' editor parts (/portal/assets/question-type-editors.js, loaded after this
  // file): each registers { label, defaults(), fields(q, path, ui) } by its type, in the registry's order.
  var registered = [];
  var editorTypes = {
    register: function (type, impl) { registered.push([type, impl]); },
    get: function (type) { var hit = registered.filter(function (r) { return r[0] === type; })[0]; return hit ? hit[1] : null; },
    list: function () { return registered.slice(); },
  };

  // What a question of each type starts with; a type change keeps the id, prompt and points.
  function typeDefaults(type) {
    var impl = editorTypes.get(type);
    return impl && impl.defaults ? impl.defaults() : {};
  }

  function changeType(q, type) {
    var kept = { type: type, prompt: q.prompt, points: q.points };
    if (q.id) kept.id = q.id;
    if (q.passageId) kept.passageId = q.passageId;
    for (var k in q) if (Object.prototype.hasOwnProperty.call(q, k)) delete q[k];
    Object.assign(q, kept, typeDefaults(type));
  }

  function newQuestion() {
    var q = { type: 'single_choice', prompt: '', points: 1 };
    Object.assign(q, typeDefaults('single_choice'));
    return q;
  }

  window.AssayEditorTypes = editorTypes;
  window.AssayEditorKit = {
    el: el, srOnly: srOnly, field: field, checkField: checkField, bind: bind, input: input, textarea: textarea, select: select,
    button: button, srAfterColon: srAfterColon, srAfterSpace: srAfterSpace, freshId: freshId, move: move, nextId: nextId, changeType: changeType, newQuestion: newQuestion,
    entryList: entryList, choiceOptions: choiceOptions, rubric: rubric, aiMarking: aiMarking, criteria: criteria,
  };
})();
