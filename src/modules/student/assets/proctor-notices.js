// What the student is told, on the page and through live regions, when supervision notices something.
// Warnings (no face, more than one face, the camera stopped) go to an assertive region (role="alert"): they
// ask for an action within seconds, before the finding becomes a flag for a reviewer, and a polite
// announcement could wait behind a long question being read out. What is over (the face is back, the camera
// is back, "you left the test page for 12 seconds") goes to a polite region (role="status"): nothing to do
// now, so it should not interrupt. Each says it in words with a label and an icon, never by colour alone,
// and neither ever blocks the page. The server decides what a finding means; this only tells the student.
const NOTE_SHOWN_MS = 20_000; // a note stays long enough to read, then leaves the sticky bar
// The page's messages in the candidate's language (i18n.js); the labels carry their own punctuation (`Warning: `, `Avertissement : `).
const t = (key, values) => window.AssayI18n.t(key, values);

function line(cls, icon, label, text) {
  const p = document.createElement('p');
  p.className = cls;
  const i = document.createElement('span');
  i.className = 'notice-icon';
  i.setAttribute('aria-hidden', 'true');
  i.textContent = icon;
  const strong = document.createElement('strong');
  strong.textContent = label;
  const body = document.createElement('span');
  body.append(strong, text);
  p.append(i, body);
  return p;
}

/**
 * The notices live in the sticky status bar, which grows while they show. Whatever the keyboard brings into view
 * (Shift+Tab, a question's link) must stop below the bar, not under it (WCAG 2.4.11): the stylesheet keeps 4.5 rem
 * clear, enough for the bar without notices; while the bar is taller, its own height (and a little air) is kept clear.
 */
function keepFocusClearOf(bar) {
  if (!bar || !window.ResizeObserver) return;
  const root = document.documentElement;
  new ResizeObserver(() => {
    const kept = parseFloat(getComputedStyle(root).fontSize) * 4.5;
    const needed = Math.ceil(bar.getBoundingClientRect().height) + 12;
    root.style.scrollPaddingTop = needed > kept ? `${needed}px` : '';
  }).observe(bar);
}

/** `alertEl` (role="alert") holds what lasts and needs an action; `noticeEl` (role="status") what is over. */
export function createNotices({ alertEl, noticeEl }) {
  const active = new Map(); // key → text (what was noticed, then what to do)
  let noteTimer = null;
  keepFocusClearOf(alertEl.closest('.status-bar'));

  function render() {
    alertEl.replaceChildren(...[...active.values()].map((text) => line('proctor-warning', '!', t('proctoring.notice.warningLabel'), text)));
  }

  function note(text, kind = 'resolved') {
    clearTimeout(noteTimer);
    noticeEl.replaceChildren(line(`proctor-note proctor-note-${kind}`, kind === 'resolved' ? '✓' : 'i', t(kind === 'resolved' ? 'proctoring.notice.resolvedLabel' : 'proctoring.notice.noteLabel'), text));
    noteTimer = setTimeout(() => noticeEl.replaceChildren(), NOTE_SHOWN_MS);
  }

  return {
    /** Shows (and announces) a lasting warning; the same text again is not announced twice. */
    warn(key, noticed, todo) {
      const text = t('proctoring.notice.joined', { noticed, todo });
      if (active.get(key) === text) return;
      active.set(key, text);
      render();
    },
    /** Ends a warning; `text` (announced politely) says it is over. Nothing is said for a warning never shown. */
    resolve(key, text) {
      if (!active.delete(key)) return;
      render();
      if (text) note(text);
    },
    note,
  };
}
