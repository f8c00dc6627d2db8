// hotspot on the test page: each region of the image is a toggle button named by its label (aria-pressed), in a
// list beside the image; the region's outline on the image shows the same state and, when clicked or tapped,
// presses the same button. The outlines are hidden from assistive technology: the buttons are the controls.
(() => {
  'use strict';
  const toggles = (fs) => [...fs.querySelectorAll('.region-toggle')];
  const isOn = (b) => b.getAttribute('aria-pressed') === 'true';
  const outline = (fs, id) => [...fs.querySelectorAll('.region-outline')].find((g) => g.dataset.regionId === id);

  // An image whose size the question does not give: the outlines are drawn in its pixels once it has loaded.
  function fit(fs) {
    const img = fs.querySelector('.region-picture img');
    const svg = fs.querySelector('.region-overlay');
    if (!img || !svg || svg.hasAttribute('viewBox')) return;
    const size = () => {
      if (img.naturalWidth === 0) return;
      svg.setAttribute('viewBox', `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
      // The class, not the viewBox, hides the overlay until now: Chromium does not restyle an SVG element when its
      // mixed-case viewBox attribute is added, so a rule on [viewBox] kept the overlay hidden.
      svg.classList.remove('region-overlay-unfitted');
    };
    if (img.complete) size();
    else img.addEventListener('load', size, { once: true });
  }

  function paint(fs) {
    for (const b of toggles(fs)) {
      const g = outline(fs, b.dataset.regionId);
      if (g) g.dataset.state = isOn(b) ? 'on' : 'off';
    }
  }

  function toggle(fs, button) {
    if (button.disabled) return;
    const max = Number(fs.querySelector('.region-question').dataset.maxChoices) || Infinity;
    const live = fs.querySelector('.region-live');
    if (!isOn(button)) {
      const pressed = toggles(fs).filter(isOn);
      // One region to choose: choosing another moves the choice, as a radio button does.
      if (max === 1) for (const b of pressed) b.setAttribute('aria-pressed', 'false');
      else if (pressed.length >= max) {
        live.textContent = window.AssayI18n.t('question.hotspot.most', { max });
        return;
      }
    }
    button.setAttribute('aria-pressed', String(!isOn(button)));
    live.textContent = '';
    paint(fs);
    button.dispatchEvent(new Event('change', { bubbles: true }));
  }

  window.AssayQuestionTypes.register('hotspot', {
    read(fs) {
      const ids = toggles(fs).filter(isOn).map((b) => b.dataset.regionId);
      return ids.length > 0 ? ids : null;
    },
    write(fs, value) {
      const chosen = new Set(Array.isArray(value) ? value : []);
      for (const b of toggles(fs)) b.setAttribute('aria-pressed', String(chosen.has(b.dataset.regionId)));
      paint(fs);
    },
    setup(fs) {
      fit(fs);
      fs.addEventListener('click', (event) => {
        const button = event.target.closest('.region-toggle');
        if (button) return toggle(fs, button);
        const g = event.target.closest('.region-outline');
        const twin = g && toggles(fs).find((b) => b.dataset.regionId === g.dataset.regionId);
        if (twin) {
          toggle(fs, twin);
          twin.focus({ preventScroll: true });
        }
      });
      // The focused button's region is outlined on the image too.
      fs.addEventListener('focusin', (event) => {
        const g = event.target.classList.contains('region-toggle') && outline(fs, event.target.dataset.regionId);
        if (g) g.dataset.focus = 'yes';
      });
      fs.addEventListener('focusout', (event) => {
        const g = event.target.classList.contains('region-toggle') && outline(fs, event.target.dataset.regionId);
        if (g) delete g.dataset.focus;
      });
    },
    typed: false,
  });
})();
