// The file upload in the form editor: Accepted file types as ticks for groups (PDF, images, Word documents, plain
// text, spreadsheets), each standing for its MIME types and named with its file extensions, and Other MIME types
// (one per line) for anything else; then Largest file, Rubric and Criteria. `accept` stays a list of MIME types:
// a stored list shows as the ticks of the groups it holds in full (or by a wildcard such as image/*) and the rest
// in Other MIME types. The groups hold the types the upload's content check recognises (attempts/file-content.ts),
// so a ticked group never admits a file the server then refuses.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;

  var GROUPS = [
    { key: 'pdf', label: 'portal.editor.fileUpload.group.pdf', types: ['application/pdf'], also: [], ext: '.pdf' },
    { key: 'images', label: 'portal.editor.fileUpload.group.images', types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], also: ['image/*'], ext: '.png, .jpg, .gif, .webp' },
    { key: 'word', label: 'portal.editor.fileUpload.group.word', types: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/vnd.oasis.opendocument.text'], also: [], ext: '.docx, .odt' },
    { key: 'text', label: 'portal.editor.fileUpload.group.text', types: ['text/plain'], also: [], ext: '.txt' },
    { key: 'spreadsheets', label: 'portal.editor.fileUpload.group.spreadsheets', types: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.oasis.opendocument.spreadsheet', 'text/csv'], also: [], ext: '.xlsx, .ods, .csv' },
  ];

  function norm(type) { return String(type).trim().toLowerCase(); }
  // A group is ticked when the list holds all its types, or a wildcard standing for them.
  function holds(accept, g) {
    var have = accept.map(norm);
    return g.also.some(function (w) { return have.indexOf(w) >= 0; }) || g.types.every(function (x) { return have.indexOf(x) >= 0; });
  }
  // The types no ticked group accounts for: what Other MIME types shows.
  function others(accept) {
    var ticked = GROUPS.filter(function (g) { return holds(accept, g); });
    return accept.filter(function (type) {
      var x = norm(type);
      return !ticked.some(function (g) { return g.types.indexOf(x) >= 0 || g.also.indexOf(x) >= 0; });
    });
  }

  function acceptFields(q, path, ui) {
    if (!Array.isArray(q.accept)) q.accept = [];
    var other = K.textarea(path + '.accept', 2);
    other.value = others(q.accept).join('\n');
    var boxes = GROUPS.map(function (g) {
      var box = K.el('input', { type: 'checkbox', 'data-group': g.key });
      box.checked = holds(q.accept, g);
      box.addEventListener('change', function () {
        if (box.checked) {
          var have = q.accept.map(norm);
          g.types.forEach(function (x) { if (have.indexOf(x) < 0) q.accept.push(x); });
        } else {
          q.accept = q.accept.filter(function (type) { var x = norm(type); return g.types.indexOf(x) < 0 && g.also.indexOf(x) < 0; });
        }
        ui.changed();
      });
      return K.checkField(t(g.label, { ext: g.ext }), box);
    });
    // Typing replaces the types no tick accounts for; the ticked groups' types stay first, in their order.
    other.addEventListener('input', function () {
      var typed = other.value.split('\n').map(function (s) { return s.trim(); }).filter(function (s) { return s !== ''; });
      var kept = q.accept.filter(function (type) { return others(q.accept).indexOf(type) < 0; });
      q.accept = kept.concat(typed.filter(function (x) { return kept.map(norm).indexOf(norm(x)) < 0; }));
      ui.changed();
    });
    // data-list: a problem with the list as a whole ("choose at least one file type") is shown here (editor-problems.js).
    var group = K.el('fieldset', { className: 'file-types', 'data-list': path + '.accept' }, [
      K.el('legend', { text: t('portal.editor.fileUpload.accept') }),
      K.el('p', { className: 'hint', text: t('portal.editor.fileUpload.acceptHint') }),
      K.el('div', { className: 'checks' }, boxes),
    ]);
    return [group, K.field(t('portal.editor.fileUpload.other'), other, t('portal.editor.fileUpload.otherHint'))];
  }

  window.AssayEditorTypes.register('file_upload', {
    label: t('portal.editor.type.fileUpload'),
    defaults: function () { return { accept: ['application/pdf'], maxBytes: 10485760 }; },
    fields: function (q, path, ui) {
      return acceptFields(q, path, ui).concat([
        K.field(t('portal.editor.fileUpload.maxBytes'), K.bind(K.input(path + '.maxBytes', { inputmode: 'decimal' }), q, 'maxBytes', 'mb', ui.changed), t('portal.editor.fileUpload.maxBytesHint')),
        K.rubric(q, path, ui, t('portal.editor.fileUpload.rubricHint')), K.criteria(q, path, ui),
      ]);
    },
  });
})();
