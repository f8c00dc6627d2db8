// The test editor's building blocks: labelled controls bound to a place in
// the draft (each carries data-path, the field path the server's problems
// use), lists with add, remove and move, and the defaults of each question
// type. test-editor-questions.js builds the questions from them and
// test-editor.js the page.
(function () {
  'use strict';

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
        var t = raw.trim().replace(',', '.');
        if (t === '') { if (kind === 'number') delete obj[key]; else if (kind === 'mb') delete obj[key]; else obj[key] = null; }
        else {
          var n = Number(t);
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

  // What a question of each type starts with; a type change keeps the id, prompt and points.
  function typeDefaults(type) {
    switch (type) {
      case 'single_choice': return { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }] };
      case 'multiple_choice': return { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }], correctOptionIds: [] };
      case 'numeric': return { tolerance: 0 };
      case 'short_text': return { acceptedAnswers: [] };
      case 'essay': return { rubric: '' };
      case 'matching': return { stems: [{ id: 's1', text: '' }], choices: [{ id: 'c1', text: '' }, { id: 'c2', text: '' }], correct: {} };
      case 'ordering': return { items: [{ id: 'i1', text: '' }, { id: 'i2', text: '' }] };
      case 'fill_blanks': return { text: '', blanks: [] };
      case 'file_upload': return { accept: ['application/pdf'], maxBytes: 10485760 };
      default: return {};
    }
  }

  function changeType(q, type) {
    var kept = { type: type, prompt: q.prompt, points: q.points };
    if (q.id) kept.id = q.id;
    for (var k in q) if (Object.prototype.hasOwnProperty.call(q, k)) delete q[k];
    Object.assign(q, kept, typeDefaults(type));
  }

  function newQuestion() {
    var q = { type: 'single_choice', prompt: '', points: 1 };
    Object.assign(q, typeDefaults('single_choice'));
    return q;
  }

  window.AssayEditorKit = {
    el: el, srOnly: srOnly, field: field, checkField: checkField, bind: bind, input: input, textarea: textarea, select: select,
    button: button, freshId: freshId, move: move, nextId: nextId, changeType: changeType, newQuestion: newQuestion,
  };
})();
