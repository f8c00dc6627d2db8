// The test page's script: wires the page's parts together: the answers and the navigator here, the autosave with
// its offline queue (test-saving.js), the timer (test-timer.js), the changes made elsewhere (test-status.js) and
// the submit dialog. Reading and restoring each question type's fields (and the ordering, upload and word-count
// behaviour) is question-fields.js's (window.assayFields). All are classic scripts, deferred, run in order with
// this one last. Plain browser JavaScript, no build step, no third-party code; loaded under a CSP that allows no
// inline script. The page works from server-rendered HTML; this only adds behaviour.
(() => {
  'use strict';
  const stateEl = document.getElementById('assay-state');
  if (!stateEl) return;
  const state = JSON.parse(stateEl.textContent);
  const $ = (id) => document.getElementById(id);
  // Every word these scripts show is the page's catalogue's, sent with the page and formatted by i18n.js (run before this).
  const t = (key, values) => window.AssayI18n.t(key, values);
  const dialog = $('submit-dialog');
  const submitForm = $('submit-form');
  const progressEl = $('submit-progress');

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
      link.querySelector('.nav-state').textContent = t(yes ? 'test.navAnswered' : 'test.navNotAnswered');
    }
    $('answered-count').textContent = t('test.answeredCount', { answered, total: blocks.size });
    return blocks.size - answered;
  }

  // What the parts share. `offset`: server clock minus this device's clock, refreshed by every save response and
  // status read (the timer runs on server time). `closed`: time is up or the test was submitted: no more edits.
  const page = {
    state,
    base: `/a/${encodeURIComponent(state.assignmentId)}`,
    $,
    t,
    blocks,
    readValue,
    updateNavigator,
    beforeSubmit,
    offset: Date.parse(state.serverNow) - Date.now(),
    closed: false,
  };

  // ---- The save queue (test-saving.js) ------------------------------------------------------------------
  const saving = window.AssayTest.saving(page);
  const { pending, flush } = saving;

  const answersEl = $('answers');
  const onEdit = (event) => {
    const fs = event.target.closest && event.target.closest('fieldset.question');
    // Choosing a file is no edit: question-fields.js uploads it, and the upload saves the answer.
    if (!fs || event.target.type === 'file') return;
    if (fs.dataset.type === 'essay') updateWordCount(fs);
    saving.recordEdit(fs.dataset.questionId);
    saving.scheduleFlush(isTyped(fs) ? 1200 : 300);
  };
  answersEl.addEventListener('input', onEdit);
  answersEl.addEventListener('change', onEdit);
  answersEl.addEventListener('focusout', () => {
    if (pending.size > 0) flush();
  });

  // An upload is saved by the server with the version it was sent with, like an autosave.
  fields.attach({
    base: page.base,
    csrfToken: state.csrfToken,
    directUploads: Boolean(state.directUploads),
    nextVersion: saving.nextVersion,
    isClosed: () => page.closed,
    confirmed(q, version) {
      saving.confirmed(q, version);
      updateNavigator();
    },
    ended() {
      page.closed = true;
      window.location.reload();
    },
  });

  // Edits this browser made that the server never confirmed (a reload while offline): put them back and send.
  saving.restore(writeValue);
  for (const fs of blocks.values()) updateWordCount(fs);
  updateNavigator();
  if (pending.size > 0) flush();

  // ---- The timer (test-timer.js) and changes made elsewhere (test-status.js) -----------------------------
  const timer = window.AssayTest.timer(page, saving);
  window.AssayTest.watchStatus(page, saving, timer);

  // ---- Submit dialog ------------------------------------------------------------------------------------
  $('open-submit').addEventListener('click', () => {
    const unanswered = updateNavigator();
    $('submit-summary').textContent = t('test.unanswered', { count: unanswered });
    progressEl.textContent = '';
    dialog.showModal();
  });
  $('cancel-submit').addEventListener('click', () => dialog.close());

  submitForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const buttons = submitForm.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    page.closed = true;
    progressEl.textContent = t('test.savingLast');
    while (pending.size > 0) {
      const done = await flush();
      if (done || pending.size === 0) break;
      if (saving.statusEl.dataset.state === 'error') break;
      progressEl.textContent = t('test.offlineSubmit');
      await new Promise((r) => setTimeout(r, 1000));
    }
    await beforeSubmit(10_000);
    progressEl.textContent = t('test.submitting');
    submitForm.submit();
  });

  // A proctored test's script sends its last recording segment first (proctor.js listens); never for longer
  // than `ms`, so supervision cannot hold a submission back.
  function beforeSubmit(ms) {
    const waits = [];
    document.dispatchEvent(new CustomEvent('assay:before-submit', { detail: { waitUntil: (p) => waits.push(p) } }));
    if (waits.length === 0) return Promise.resolve();
    progressEl.textContent = t('test.sendingRecording');
    return Promise.race([Promise.allSettled(waits), new Promise((r) => setTimeout(r, ms))]);
  }
})();
