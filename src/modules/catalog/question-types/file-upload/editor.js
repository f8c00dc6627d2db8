// The file upload in the form editor: Accepted file types, Largest file, Rubric and Criteria.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  window.AssayEditorTypes.register('file_upload', {
    label: 'File upload',
    defaults: function () { return { accept: ['application/pdf'], maxBytes: 10485760 }; },
    fields: function (q, path, ui) {
      return [K.field('Accepted file types', K.bind(K.textarea(path + '.accept', 2), q, 'accept', 'lines', ui.changed), 'One MIME type per line, such as application/pdf or image/*.'),
        K.field('Largest file (MB)', K.bind(K.input(path + '.maxBytes', { inputmode: 'decimal' }), q, 'maxBytes', 'mb', ui.changed), 'At most 20 MB.'),
        K.rubric(q, path, ui, 'Shown to reviewers when marking.'), K.criteria(q, path, ui)];
    },
  });
})();
