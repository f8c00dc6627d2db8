// The file upload on the test page: its answer is the stored file ({ fileId }), which the upload itself saves
// (question-fields.js sends the file and shows it); a reload's unsent edit from this device is only ever a removal.
(() => {
  'use strict';
  window.AssayQuestionTypes.register('file_upload', {
    read(fs) {
      const fileId = fs.querySelector('.file-answer').dataset.fileId;
      return fileId ? { fileId } : null;
    },
    write(fs, value) {
      if (value === null) window.assayFields.showFile(fs, null);
    },
    typed: false,
  });
})();
