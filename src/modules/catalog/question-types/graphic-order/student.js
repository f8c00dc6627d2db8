// graphic_order on the test page: the ordering question's list (Move up / Move down buttons named by each region's
// label, the end buttons aria-disabled so the focus stays put) beside the image, which numbers each region by its
// place in the list. Clicking or tapping a region on the image moves the focus to its row's first usable button.
// The shown order is never the correct one and is no answer until the candidate moves a region.
(() => {
  'use strict';
  const list = (fs) => fs.querySelector('.region-order');

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

  // The end buttons and the numbers on the image follow the list.
  function refresh(fs) {
    const items = [...list(fs).children];
    items.forEach((li, i) => {
      li.querySelector('[data-region-move=up]').setAttribute('aria-disabled', String(i === 0));
      li.querySelector('[data-region-move=down]').setAttribute('aria-disabled', String(i === items.length - 1));
      const g = [...fs.querySelectorAll('.region-outline')].find((o) => o.dataset.regionId === li.dataset.itemId);
      const mark = g && g.querySelector('.region-mark');
      if (mark) mark.textContent = String(i + 1);
    });
  }

  function move(fs, button) {
    if (button.disabled || button.getAttribute('aria-disabled') === 'true') return;
    const li = button.closest('li');
    const up = button.dataset.regionMove === 'up';
    const other = up ? li.previousElementSibling : li.nextElementSibling;
    if (!other) return;
    // The neighbour moves, not the row with the focus, so the focus is never lost.
    li.parentElement.insertBefore(other, up ? li.nextElementSibling : li);
    list(fs).dataset.ordered = 'yes';
    refresh(fs);
    button.focus();
    const items = [...list(fs).children];
    fs.querySelector('.order-live').textContent = window.AssayI18n.t('question.order.moved', {
      item: li.querySelector('.order-text').textContent,
      position: items.indexOf(li) + 1,
      total: items.length,
    });
    button.dispatchEvent(new Event('change', { bubbles: true }));
  }

  window.AssayQuestionTypes.register('graphic_order', {
    read(fs) {
      const l = list(fs);
      return l.dataset.ordered === 'yes' ? [...l.children].map((li) => li.dataset.itemId) : null;
    },
    write(fs, value) {
      const l = list(fs);
      if (Array.isArray(value)) {
        const byId = new Map([...l.children].map((li) => [li.dataset.itemId, li]));
        for (const id of value) if (byId.has(id)) l.append(byId.get(id));
      }
      l.dataset.ordered = Array.isArray(value) ? 'yes' : 'no';
      refresh(fs);
    },
    setup(fs) {
      fit(fs);
      fs.addEventListener('click', (event) => {
        const button = event.target.closest('[data-region-move]');
        if (button) return move(fs, button);
        const g = event.target.closest('.region-outline');
        const li = g && [...list(fs).children].find((row) => row.dataset.itemId === g.dataset.regionId);
        if (li) {
          const usable = [...li.querySelectorAll('[data-region-move]')].find((b) => b.getAttribute('aria-disabled') !== 'true');
          if (usable) usable.focus();
        }
      });
    },
    typed: false,
  });
})();
