// The test page's script: autosave with an offline queue, the navigator, the timer and the submit dialog.
// Reading and restoring each question type's fields (and the ordering, upload and word-count behaviour) is
// question-fields.js's (window.assayFields), loaded just before this. Plain browser JavaScript, no build
// step, no third-party code; loaded under a CSP that allows no inline script. The page works from server-rendered HTML; this only adds behaviour.
(() => {
  'use strict';
  const stateEl = document.getElementById('assay-state');
  if (!stateEl) return;
  const state = JSON.parse(stateEl.textContent);
  const base = `/a/${encodeURIComponent(state.assignmentId)}`;
  const $ = (id) => document.getElementById(id);
  const statusEl = $('save-status');
  const connectionEl = $('connection-status');
  const alertEl = $('time-alert');
  const timerEl = $('timer-value');
  const dialog = $('submit-dialog');
  const submitForm = $('submit-form');
  const progressEl = $('submit-progress');
  // Server clock minus this device's clock, refreshed by every save response; the timer runs on server time.
  let offset = Date.parse(state.serverNow) - Date.now();

  // ---- Answers: each question's fields are read and written by question-fields.js -------------------------
  const blocks = new Map(); // questionId → fieldset
  for (const fs of document.querySelectorAll('fieldset.question')) blocks.set(fs.dataset.questionId, fs);
  const fields = window.assayFields;
  const { read: readValue, write: writeValue, isAnswered, isTyped, updateWordCount } = fields;

  function updateNavigator() {
    let answered = 0;
    for (const fs of blocks.values()) {
      const yes = isAnswered(readValue(fs));
      if (yes) answered++;
      const link = $(`nav-${fs.dataset.n}`);
      link.dataset.answered = yes ? 'yes' : 'no';
      link.querySelector('.nav-state').textContent = yes ? 'answered' : 'not answered';
    }
    $('answered-count').textContent = `${answered} of ${blocks.size} answered`;
    return blocks.size - answered;
  }

  // ---- The save queue -----------------------------------------------------------------------------------
  // Every edit gets a version (increasing, from the clock and past versions); the server keeps the highest,
  // so retries and a second tab can never put an older answer back. Unsent edits live in localStorage, one
  // key per question, until the server has stored that version or a newer one: a reload, a crash or a
  // network cut loses nothing, and the queue is sent again on the next load.
  const known = new Map(Object.entries(state.answers).map(([q, a]) => [q, a.version]));
  const pending = new Map(); // questionId → { value, version }
  const storeKey = (q) => `assay:answer:${state.assignmentId}:${q}`;
  const store = {
    put(q, entry) {
      try { localStorage.setItem(storeKey(q), JSON.stringify(entry)); } catch { /* storage full or blocked: memory only */ }
    },
    get(q) {
      try { return JSON.parse(localStorage.getItem(storeKey(q)) || 'null'); } catch { return null; }
    },
    drop(q, upTo) {
      const e = store.get(q);
      try { if (e && e.version <= upTo) localStorage.removeItem(storeKey(q)); } catch { /* ignore */ }
    },
  };

  let closed = false; // time is up or the test was submitted: no more edits
  let inFlight = null;
  let again = false;
  let retryTimer = null;
  let retryDelay = 1000;
  let debounce = null;

  // Whether the live region last told screen readers "offline": a retry passes through "Saving…" before
  // "Saved", so the visible state before "Saved" is not enough to know the offline notice must be replaced.
  let announcedOffline = false;

  function setStatus(kind, text) {
    statusEl.dataset.state = kind;
    statusEl.textContent = text || { saving: 'Saving…', saved: 'Saved', offline: 'Offline — will retry' }[kind];
    // Screen readers hear connection changes only, not every save.
    if (kind === 'offline' && !announcedOffline) {
      announcedOffline = true;
      connectionEl.textContent = 'You are offline. Your answers are kept and will be saved when the connection returns.';
    }
    if (kind === 'saved' && announcedOffline) {
      announcedOffline = false;
      connectionEl.textContent = 'Back online. All answers saved.';
    }
    if (kind === 'error') {
      announcedOffline = false;
      connectionEl.textContent = statusEl.textContent;
    }
  }

  const nextVersion = (q) => {
    const last = pending.get(q);
    return Math.max(Date.now(), (known.get(q) || 0) + 1, last ? last.version + 1 : 0);
  };

  function recordEdit(q) {
    if (closed) return;
    const value = readValue(blocks.get(q));
    const entry = { value, version: nextVersion(q) };
    pending.set(q, entry);
    store.put(q, entry);
    updateNavigator();
    setStatus('saving');
  }

  function scheduleFlush(ms) {
    clearTimeout(debounce);
    debounce = setTimeout(flush, ms);
  }

  function flush() {
    clearTimeout(debounce);
    if (inFlight) {
      again = true;
      return inFlight;
    }
    if (pending.size === 0) return Promise.resolve(true);
    inFlight = send().finally(() => {
      inFlight = null;
      if (again && pending.size > 0) {
        again = false;
        flush();
      }
    });
    return inFlight;
  }

  /** One request with the queued answers (capped in size); resolves true when the queue is empty. */
  async function send() {
    const batch = [];
    let bytes = 0;
    for (const [questionId, e] of pending) {
      const size = JSON.stringify(e.value).length + 100;
      if (batch.length > 0 && bytes + size > 400_000) break;
      batch.push({ questionId, value: e.value, version: e.version });
      bytes += size;
    }
    setStatus('saving');
    const started = Date.now();
    let res;
    try {
      res = await fetch(`${base}/answers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrfToken },
        body: JSON.stringify({ answers: batch }),
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      return retryLater();
    }
    if (res.ok) {
      const body = await res.json();
      offset = Date.parse(body.serverTime) - (started + Date.now()) / 2;
      for (const r of body.results) {
        known.set(r.questionId, Math.max(known.get(r.questionId) || 0, r.version));
        const p = pending.get(r.questionId);
        if (p && p.version <= r.version) pending.delete(r.questionId);
        store.drop(r.questionId, r.version);
      }
      retryDelay = 1000;
      if (pending.size === 0) {
        setStatus('saved');
        return true;
      }
      return send();
    }
    if (res.status === 409) {
      // Submitted (another tab, or the deadline): the page for the new state says what happened.
      closed = true;
      window.location.reload();
      return false;
    }
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      setStatus('error', 'Not saved: your session has ended. Open your test link again; your answers are kept on this device.');
      return false;
    }
    if (res.status === 400) {
      // Only a broken page sends what the server refuses as malformed; retrying cannot help.
      for (const b of batch) pending.delete(b.questionId);
      setStatus('error', 'An answer could not be saved. Reload the page and enter it again.');
      return false;
    }
    return retryLater();
  }

  function retryLater() {
    setStatus('offline');
    clearTimeout(retryTimer);
    retryTimer = setTimeout(flush, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15_000);
    return false;
  }

  window.addEventListener('online', () => {
    retryDelay = 1000;
    flush();
  });

  const answersEl = $('answers');
  const onEdit = (event) => {
    const fs = event.target.closest && event.target.closest('fieldset.question');
    // Choosing a file is no edit: question-fields.js uploads it, and the upload saves the answer.
    if (!fs || event.target.type === 'file') return;
    if (fs.dataset.type === 'essay') updateWordCount(fs);
    recordEdit(fs.dataset.questionId);
    scheduleFlush(isTyped(fs) ? 1200 : 300);
  };
  answersEl.addEventListener('input', onEdit);
  answersEl.addEventListener('change', onEdit);
  answersEl.addEventListener('focusout', () => {
    if (pending.size > 0) flush();
  });

  // An upload is saved by the server with the version it was sent with, like an autosave.
  fields.attach({
    base,
    csrfToken: state.csrfToken,
    directUploads: Boolean(state.directUploads),
    nextVersion,
    isClosed: () => closed,
    confirmed(q, version) {
      known.set(q, Math.max(known.get(q) || 0, version));
      const p = pending.get(q);
      if (p && p.version <= version) pending.delete(q);
      store.drop(q, version);
      updateNavigator();
    },
    ended() {
      closed = true;
      window.location.reload();
    },
  });

  // Edits this browser made that the server never confirmed (a reload while offline): put them back and send.
  for (const [q, fs] of blocks) {
    const local = store.get(q);
    if (!local) continue;
    if (local.version > (known.get(q) || 0)) {
      pending.set(q, local);
      writeValue(fs, local.value);
    } else {
      store.drop(q, known.get(q));
    }
  }
  for (const fs of blocks.values()) updateWordCount(fs);
  updateNavigator();
  if (pending.size > 0) flush();

  // ---- Timer --------------------------------------------------------------------------------------------
  // Counts down to the server's deadline; `offset` corrects this device's clock by the server's.
  let deadline = Date.parse(state.deadline); // moved by the status stream (or poll) when the institution changes extra time
  const GRACE_MS = 30_000;
  const warned = { five: false, one: false };

  const format = (ms) => {
    const s = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
  };

  function tick() {
    const left = deadline - (Date.now() + offset);
    timerEl.textContent = format(left);
    if (left <= 60_000 && !warned.one) {
      warned.one = warned.five = true;
      alertEl.textContent = 'Less than 1 minute left. Your test will be submitted when the time is up.';
      timerEl.parentElement.dataset.low = 'yes';
    } else if (left <= 5 * 60_000 && !warned.five) {
      warned.five = true;
      alertEl.textContent = 'Less than 5 minutes left.';
      timerEl.parentElement.dataset.low = 'yes';
    }
    if (left <= 0 && !closed) timeUp();
  }

  async function timeUp() {
    closed = true;
    clearInterval(clock);
    for (const el of answersEl.querySelectorAll('input, textarea, select, button')) el.disabled = true;
    if (dialog.open) dialog.close();
    alertEl.textContent = 'Time is up. Submitting your answers…';
    // Keep trying to save until the server stops accepting (deadline + grace), then submit what it has.
    const stopAt = deadline + GRACE_MS - 2000;
    while (pending.size > 0 && Date.now() + offset < stopAt) {
      await flush();
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    await beforeSubmit(5000);
    submitForm.submit();
  }

  const clock = setInterval(tick, 250);
  tick();

  // ---- Changes made elsewhere ---------------------------------------------------------------------------
  // While the page is open the institution can give more time or withdraw the test, and the attempt can be
  // submitted from another tab or by the server at the deadline. The server pushes each change on an event
  // stream (`/events`); where the stream cannot be held (no EventSource, refused, failing again and again) a
  // small status read every 10 s while the page is visible (and at once when it becomes visible again) does.
  const noticeEl = $('time-notice');
  const pad2 = (n) => String(n).padStart(2, '0');
  // The end time on this device's clock (server time corrected by `offset`), as HH:MM.
  const clockTime = (serverMs) => {
    const d = new Date(serverMs - offset);
    return `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  };

  function deadlineMoved(next) {
    const later = next > deadline;
    deadline = next;
    const left = deadline - (Date.now() + offset);
    if (left > 60_000) warned.one = false;
    if (left > 5 * 60_000) {
      warned.five = false;
      timerEl.parentElement.dataset.low = 'no';
      alertEl.textContent = '';
    }
    noticeEl.textContent = later
      ? `You have been given more time: the test now ends at ${clockTime(deadline)}.`
      : `The end time of your test has changed: it now ends at ${clockTime(deadline)}.`;
    tick();
  }

  /** A status from the stream or a poll: the page for a new state says what happened; a moved deadline is shown. */
  function applyStatus(body) {
    if (body.status !== 'started') {
      stopWatching();
      if (!closed) {
        closed = true;
        window.location.reload();
      }
      return;
    }
    const next = Date.parse(body.deadline);
    if (next !== deadline && !closed) deadlineMoved(next);
  }

  let polling = false;
  async function pollStatus() {
    if (polling || closed || document.hidden) return;
    polling = true;
    try {
      const sent = Date.now();
      const res = await fetch(`${base}/status`, { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401 || res.status === 404) {
        stopWatching();
        setStatus('error', 'Your session has ended. Open your test link again; your answers are kept on this device.');
        return;
      }
      if (!res.ok) return;
      const body = await res.json();
      offset = Date.parse(body.serverNow) - (sent + Date.now()) / 2;
      applyStatus(body);
    } catch {
      /* offline: the next poll tries again */
    } finally {
      polling = false;
    }
  }

  let poller = null;
  let source = null;
  function startPolling() {
    if (!poller) poller = setInterval(pollStatus, 10_000);
  }
  function stopWatching() {
    clearInterval(poller);
    poller = null;
    if (source) source.close();
    source = null;
  }
  function listen() {
    if (typeof EventSource !== 'function') return startPolling();
    let failures = 0;
    source = new EventSource(`${base}/events`);
    source.addEventListener('status', (event) => {
      failures = 0;
      applyStatus(JSON.parse(event.data));
    });
    source.addEventListener('error', () => {
      // A change made while the stream was down is caught by one poll; the browser reconnects by itself,
      // unless the server refused the stream (full, or the session is gone), or it keeps failing: then poll.
      pollStatus();
      failures++;
      if (source && (source.readyState === EventSource.CLOSED || failures >= 3)) {
        source.close();
        source = null;
        startPolling();
      }
    });
  }
  listen();
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !source) pollStatus();
  });

  // ---- Submit dialog ------------------------------------------------------------------------------------
  $('open-submit').addEventListener('click', () => {
    const unanswered = updateNavigator();
    $('submit-summary').textContent =
      unanswered === 0 ? 'You have answered every question.' : `You have ${unanswered} unanswered ${unanswered === 1 ? 'question' : 'questions'}.`;
    progressEl.textContent = '';
    dialog.showModal();
  });
  $('cancel-submit').addEventListener('click', () => dialog.close());

  submitForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const buttons = submitForm.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    closed = true;
    progressEl.textContent = 'Saving your last answers…';
    while (pending.size > 0) {
      const done = await flush();
      if (done || pending.size === 0) break;
      if (statusEl.dataset.state === 'error') break;
      progressEl.textContent = 'You are offline. Your test will be submitted as soon as the connection returns.';
      await new Promise((r) => setTimeout(r, 1000));
    }
    await beforeSubmit(10_000);
    progressEl.textContent = 'Submitting…';
    submitForm.submit();
  });

  // A proctored test's script sends its last recording segment first (proctor.js listens); never for longer
  // than `ms`, so supervision cannot hold a submission back.
  function beforeSubmit(ms) {
    const waits = [];
    document.dispatchEvent(new CustomEvent('assay:before-submit', { detail: { waitUntil: (p) => waits.push(p) } }));
    if (waits.length === 0) return Promise.resolve();
    progressEl.textContent = 'Sending the last part of the recording…';
    return Promise.race([Promise.allSettled(waits), new Promise((r) => setTimeout(r, ms))]);
  }
})();
