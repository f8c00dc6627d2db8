// The ordering question on the test page: the items as a numbered list, each with Move up / Move down buttons
// (the end buttons aria-disabled rather than disabled, so the focus stays on the button just used). The shown
// order is never the correct one and is no answer until the student moves an item; the answer is the item ids
// in the student's order.
(() => {
  'use strict';
  const list = (fs) => fs.querySelector('.order-list');

  function refreshMoves(l) {
    const items = [...l.children];
    items.forEach((li, i) => {
      li.querySelector('[data-move=up]').setAttribute('aria-disabled', String(i === 0));
      li.querySelector('[data-move=down]').setAttribute('aria-disabled', String(i === items.length - 1));
    });
  }

  function move(button) {
    if (button.getAttribute('aria-disabled') === 'true' || window.assayFields.isClosed()) return;
    const li = button.closest('li');
    const l = li.parentElement;
    const up = button.dataset.move === 'up';
    const other = up ? li.previousElementSibling : li.nextElementSibling;
    if (!other) return;
    // The neighbour moves, not the item with the focus, so the focus is never lost.
    l.insertBefore(other, up ? li.nextElementSibling : li);
    l.dataset.ordered = 'yes';
    refreshMoves(l);
    button.focus();
    // The live region of the part (a composite question) or of the question the list is in.
    const fs = l.closest('fieldset.part, fieldset.question');
    const position = [...l.children].indexOf(li) + 1;
    fs.querySelector('.order-live').textContent = window.AssayI18n.t('question.order.moved', {
      item: li.dataset.text || li.querySelector('.order-text').textContent,
      position,
      total: l.children.length,
    });
    fs.dispatchEvent(new Event('change', { bubbles: true }));
  }

  window.AssayQuestionTypes.register('ordering', {
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
      refreshMoves(l);
    },
    setup(fs) {
      fs.addEventListener('click', (event) => {
        const button = event.target.closest && event.target.closest('button[data-move]');
        if (button) move(button);
      });
    },
    typed: false,
  });
})();
