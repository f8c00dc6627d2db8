// The completion page of a proctored test: recording segments and pictures that this browser still holds
// (the test was submitted while they waited for the network, or the time ran out mid-upload) are sent
// from here. The server accepts them for a while after submission when they were captured before it.
import { createUploadQueue } from './proctor-uploads.js';

const stateEl = document.getElementById('assay-state');
const state = stateEl ? JSON.parse(stateEl.textContent) : null;
const statusEl = document.getElementById('upload-rest');
// The page's messages in the candidate's language (i18n.js, a module that runs before this one).
const t = (key, values) => window.AssayI18n.t(key, values);

if (state && statusEl) {
  let shown = false;
  const queue = await createUploadQueue({
    assignmentId: state.assignmentId,
    csrfToken: state.csrfToken,
    direct: Boolean(state.directUploads),
    onChange: ({ queued, failing }) => {
      if (!shown && queued === 0) return; // nothing was left over: say nothing
      shown = true;
      statusEl.hidden = false;
      statusEl.textContent = t(queued === 0 ? 'proctoring.uploadRest.sent' : failing ? 'proctoring.uploadRest.waiting' : 'proctoring.uploadRest.sending');
    },
  });
  if (queue.size > 0) {
    shown = true;
    statusEl.hidden = false;
    statusEl.textContent = t('proctoring.uploadRest.sending');
    queue.flush();
  }
}
