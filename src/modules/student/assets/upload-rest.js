// The completion page of a proctored test: recording segments and pictures that this browser still holds
// (the test was submitted while they waited for the network, or the time ran out mid-upload) are sent
// from here. The server accepts them for a while after submission when they were captured before it.
import { createUploadQueue } from './proctor-uploads.js';

const stateEl = document.getElementById('assay-state');
const state = stateEl ? JSON.parse(stateEl.textContent) : null;
const statusEl = document.getElementById('upload-rest');

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
      statusEl.textContent =
        queued === 0
          ? 'The rest of your test recording has been sent. You can close this page.'
          : failing
            ? 'Part of your test recording is still on this device and will be sent when the connection returns. Keep this page open.'
            : 'Sending the rest of your test recording… Keep this page open.';
    },
  });
  if (queue.size > 0) {
    shown = true;
    statusEl.hidden = false;
    statusEl.textContent = 'Sending the rest of your test recording… Keep this page open.';
    queue.flush();
  }
}
