// hot_text on the test page: each phrase is a toggle button (aria-pressed) in the text. A press past the
// question's maxChoices is refused and said politely in the part's live region; the visible count says how
// many are chosen. The answer is the pressed phrases' hotspot ids (null when none).
(() => {
  'use strict';
  const phrases = (fs) => [...fs.querySelectorAll('.hot-phrase')];
  const pressed = (fs) => phrases(fs).filter((b) => b.getAttribute('aria-pressed') === 'true');
  const t = (key, values) => window.AssayI18n.t(key, values);

  // The words the server writes (hot-text-page.ts).
  function showCount(fs) {
    const box = fs.querySelector('.hot-text-box');
    const max = Number(box.dataset.maxChoices) || null;
    const count = pressed(fs).length;
    fs.querySelector('.hot-count').textContent = max ? t('question.hotText.countOfMax', { count, max }) : t('question.hotText.count', { count });
  }

  function toggle(fs, button) {
    const box = fs.querySelector('.hot-text-box');
    const live = fs.querySelector('.hot-live');
    const max = Number(box.dataset.maxChoices) || null;
    const on = button.getAttribute('aria-pressed') === 'true';
    const name = button.getAttribute('aria-label') || button.textContent.trim();
    if (!on && max && pressed(fs).length >= max) {
      live.textContent = t('question.hotText.most', { max });
      return;
    }
    button.setAttribute('aria-pressed', on ? 'false' : 'true');
    showCount(fs);
    live.textContent = t(on ? 'question.hotText.unchosen' : 'question.hotText.chosen', { phrase: name });
    button.dispatchEvent(new Event('change', { bubbles: true }));
  }

  window.AssayQuestionTypes.register('hot_text', {
    read(fs) {
      const ids = pressed(fs).map((b) => b.dataset.hotspotId);
      return ids.length > 0 ? ids : null;
    },
    write(fs, value) {
      const chosen = new Set(Array.isArray(value) ? value : []);
      for (const b of phrases(fs)) b.setAttribute('aria-pressed', chosen.has(b.dataset.hotspotId) ? 'true' : 'false');
      showCount(fs);
    },
    setup(fs) {
      fs.querySelector('.hot-text-box').addEventListener('click', (event) => {
        const button = event.target.closest && event.target.closest('.hot-phrase');
        if (button) toggle(fs, button);
      });
    },
    typed: false,
  });
})();
