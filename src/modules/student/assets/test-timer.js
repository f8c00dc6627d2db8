// The test page's timer (student.js wires it): counts down to the server's deadline on server time, warns at
// five minutes and one, says the time left in words for screen readers, and when time is up stops the edits,
// keeps saving until the server stops accepting, and submits. A moved deadline (test-status.js) is shown.
// Plain browser JavaScript, a classic script loaded (deferred) before student.js.
(() => {
  'use strict';
  const test = (window.AssayTest = window.AssayTest || {});

  /** The timer of the page `page` (student.js), saving through `saving` (test-saving.js). */
  test.timer = (page, saving) => {
    const { state, t, $ } = page;
    const alertEl = $('time-alert');
    const timerEl = $('timer-value');
    const answersEl = $('answers');
    const dialog = $('submit-dialog');
    const submitForm = $('submit-form');
    // Counts down to the server's deadline; `page.offset` corrects this device's clock by the server's.
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

    // The digits are the same in every language; screen readers also get the time left in words, in whole minutes.
    const spokenEl = $('timer-spoken');
    let spokenMinutes = null;
    function tick() {
      const left = deadline - (Date.now() + page.offset);
      timerEl.textContent = format(left);
      const minutes = Math.ceil(Math.max(0, left) / 60_000);
      if (minutes !== spokenMinutes && spokenEl) {
        spokenMinutes = minutes;
        spokenEl.textContent = t('test.timeLeftSpoken', { minutes });
      }
      if (left <= 60_000 && !warned.one) {
        warned.one = warned.five = true;
        alertEl.textContent = t('test.timeLow1');
        timerEl.parentElement.dataset.low = 'yes';
      } else if (left <= 5 * 60_000 && !warned.five) {
        warned.five = true;
        alertEl.textContent = t('test.timeLow5');
        timerEl.parentElement.dataset.low = 'yes';
      }
      if (left <= 0 && !page.closed) timeUp();
    }

    async function timeUp() {
      page.closed = true;
      clearInterval(clock);
      for (const el of answersEl.querySelectorAll('input, textarea, select, button')) el.disabled = true;
      if (dialog.open) dialog.close();
      alertEl.textContent = t('test.timeUp');
      // Keep trying to save until the server stops accepting (deadline + grace), then submit what it has.
      const stopAt = deadline + GRACE_MS - 2000;
      while (saving.pending.size > 0 && Date.now() + page.offset < stopAt) {
        await saving.flush();
        if (saving.pending.size > 0) await new Promise((r) => setTimeout(r, 1000));
      }
      await page.beforeSubmit(5000);
      submitForm.submit();
    }

    const clock = setInterval(tick, 250);
    tick();

    const noticeEl = $('time-notice');
    // The end time on this device's clock (server time corrected by `offset`), on a 24-hour clock in the page's
    // language (14:05): no a.m./p.m. to misread under time pressure.
    const clockTime = (serverMs) => window.AssayI18n.time(new Date(serverMs - page.offset), { hour: '2-digit', hourCycle: 'h23' });

    function deadlineMoved(next) {
      const later = next > deadline;
      deadline = next;
      const left = deadline - (Date.now() + page.offset);
      if (left > 60_000) warned.one = false;
      if (left > 5 * 60_000) {
        warned.five = false;
        timerEl.parentElement.dataset.low = 'no';
        alertEl.textContent = '';
      }
      noticeEl.textContent = t(later ? 'test.moreTime' : 'test.endChanged', { time: clockTime(deadline) });
      tick();
    }

    return { deadline: () => deadline, deadlineMoved };
  };
})();
