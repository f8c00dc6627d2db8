// The test page's autosave (student.js wires it): every edit queued with a version, kept in localStorage until
// the server has it, sent in batches, retried with back-off while offline; the save status shown and, for
// screen readers, connection changes announced. Plain browser JavaScript, a classic script loaded (deferred)
// before student.js, under a CSP that allows no inline script.
(() => {
  'use strict';
  const test = (window.AssayTest = window.AssayTest || {});

  /**
   * The save queue of the page `page` (student.js): `page.state`, `page.base`, `page.t`, `page.$`, the
   * question blocks and `page.readValue`, `page.updateNavigator`; `page.offset` (server clock minus this
   * device's) is refreshed by every save, `page.closed` is read and set (time up, or submitted elsewhere).
   */
  test.saving = (page) => {
    const { state, base, t, $ } = page;
    const statusEl = $('save-status');
    const connectionEl = $('connection-status');

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
      statusEl.textContent = text || t({ saving: 'save.saving', saved: 'save.saved', offline: 'save.offline' }[kind]);
      // Screen readers hear connection changes only, not every save.
      if (kind === 'offline' && !announcedOffline) {
        announcedOffline = true;
        connectionEl.textContent = t('save.offlineAnnounced');
      }
      if (kind === 'saved' && announcedOffline) {
        announcedOffline = false;
        connectionEl.textContent = t('save.backOnline');
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
      if (page.closed) return;
      const value = page.readValue(page.blocks.get(q));
      const entry = { value, version: nextVersion(q) };
      pending.set(q, entry);
      store.put(q, entry);
      page.updateNavigator();
      setStatus('saving');
    }

    /** The server has `version` of question `q` (a save, or an upload it stored): drop what it supersedes. */
    function confirmed(q, version) {
      known.set(q, Math.max(known.get(q) || 0, version));
      const p = pending.get(q);
      if (p && p.version <= version) pending.delete(q);
      store.drop(q, version);
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
        page.offset = Date.parse(body.serverTime) - (started + Date.now()) / 2;
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
        page.closed = true;
        window.location.reload();
        return false;
      }
      if (res.status === 401 || res.status === 403 || res.status === 404) {
        setStatus('error', t('save.sessionEnded'));
        return false;
      }
      if (res.status === 400) {
        // Only a broken page sends what the server refuses as malformed; retrying cannot help.
        for (const b of batch) pending.delete(b.questionId);
        setStatus('error', t('save.refused'));
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

    /** Edits this browser made that the server never confirmed (a reload while offline): put them back to be sent. */
    function restore(writeValue) {
      for (const [q, fs] of page.blocks) {
        const local = store.get(q);
        if (!local) continue;
        if (local.version > (known.get(q) || 0)) {
          pending.set(q, local);
          writeValue(fs, local.value);
        } else {
          store.drop(q, known.get(q));
        }
      }
    }

    return { pending, statusEl, setStatus, nextVersion, recordEdit, confirmed, scheduleFlush, flush, restore };
  };
})();
