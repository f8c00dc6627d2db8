// Changes made elsewhere while the test page is open (student.js wires it): the institution can give more time
// or withdraw the test, and the attempt can be submitted from another tab or by the server at the deadline.
// The server pushes each change on an event stream (`/events`); where the stream cannot be held (no
// EventSource, refused, failing again and again) a small status read every 10 s while the page is visible (and
// at once when it becomes visible again) does. Plain browser JavaScript, a classic script loaded (deferred)
// before student.js.
(() => {
  'use strict';
  const test = (window.AssayTest = window.AssayTest || {});

  /** Watches the attempt's status for the page `page` (student.js): a moved deadline goes to `timer` (test-timer.js). */
  test.watchStatus = (page, saving, timer) => {
    const { base, t } = page;

    /** A status from the stream or a poll: the page for a new state says what happened; a moved deadline is shown. */
    function applyStatus(body) {
      if (body.status !== 'started') {
        stopWatching();
        if (!page.closed) {
          page.closed = true;
          window.location.reload();
        }
        return;
      }
      const next = Date.parse(body.deadline);
      if (next !== timer.deadline() && !page.closed) timer.deadlineMoved(next);
    }

    let polling = false;
    async function pollStatus() {
      if (polling || page.closed || document.hidden) return;
      polling = true;
      try {
        const sent = Date.now();
        const res = await fetch(`${base}/status`, { credentials: 'same-origin', cache: 'no-store' });
        if (res.status === 401 || res.status === 404) {
          stopWatching();
          saving.setStatus('error', t('save.sessionEndedStatus'));
          return;
        }
        if (!res.ok) return;
        const body = await res.json();
        page.offset = Date.parse(body.serverNow) - (sent + Date.now()) / 2;
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
  };
})();
