// LTI Client Side postMessages, platform storage (1EdTech): keeps the login's browser binding in the
// learning platform's storage frame when the browser drops the tool's cookie in the course's frame.
// "put" (the login page): lti.put_data, then on to the platform's sign-in. "get" (the launch page):
// lti.get_data, then the launch is posted again with the value. Messages go to the platform's origin
// only, and only answers from that origin, to this message id, are read. Without an answer in time the
// page goes on without it (the cookie alone then decides).
(function () {
  const el = document.getElementById('lti-storage');
  const next = document.getElementById('lti-continue');
  if (!el || !next) return;
  const { mode, target, origin, key, value } = el.dataset;
  const timeout = Number(el.dataset.timeout) || 2000;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const messageId = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  let done = false;

  function finish(read) {
    if (done) return;
    done = true;
    if (mode === 'put') {
      window.location.replace(next.href);
      return;
    }
    if (typeof read === 'string') next.elements.namedItem('browser_binding').value = read;
    next.submit();
  }

  let frame = null;
  try {
    const host = window.parent !== window ? window.parent : window.opener;
    frame = target === '_parent' ? host : host && host.frames[target];
  } catch {
    frame = null;
  }
  if (!frame) {
    finish();
    return;
  }
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.origin !== origin || typeof data !== 'object' || data === null) return;
    if (data.message_id !== messageId || data.subject !== `lti.${mode}_data.response`) return;
    finish(!data.error && typeof data.value === 'string' ? data.value : undefined);
  });
  const message = mode === 'put' ? { subject: 'lti.put_data', message_id: messageId, key, value } : { subject: 'lti.get_data', message_id: messageId, key };
  frame.postMessage(message, origin);
  setTimeout(finish, timeout);
})();
