// The associate question on the test page: two selects and an Add pair button make a pair; each pair made is a
// row with its Remove button. The answer is the rows, [[a, b], …] (the server puts each pair's ids and the pairs
// in item order). Every change is said in the question's status line (polite), and the focus never falls to the
// page: after a removal it goes to the next row's Remove button, else the previous one's, else the first select.
(() => {
  'use strict';

  const itemsOf = (box) => new Map([...box.querySelectorAll('.assoc-items li[data-item-id]')].map((li) => [li.dataset.itemId, li]));
  const rows = (box) => [...box.querySelectorAll('.assoc-pairs .assoc-pair')];
  const maxOf = (box) => (box.dataset.max ? Number(box.dataset.max) : null);
  const textOf = (li) => li.dataset.text || li.textContent.trim();
  const t = (key, values) => window.AssayI18n.t(key, values);
  // "A and B": a pair named by its items' plain texts, as page.ts names it.
  const pairName = (items, a, b) => t('question.associate.pair', { a: textOf(items.get(a)), b: textOf(items.get(b)) });

  /** A pair's row: each item's shown content copied from the items list (formulas and images as rendered). */
  function row(box, a, b) {
    const items = itemsOf(box);
    const li = document.createElement('li');
    li.className = 'assoc-pair';
    li.dataset.a = a;
    li.dataset.b = b;
    const text = document.createElement('span');
    text.className = 'assoc-pair-text';
    const side = (id, cls) => {
      const s = document.createElement('span');
      s.className = cls;
      const shown = items.get(id).querySelector('.assoc-item-text');
      for (const n of shown.childNodes) s.appendChild(n.cloneNode(true));
      return s;
    };
    const arrow = document.createElement('span');
    arrow.setAttribute('aria-hidden', 'true');
    arrow.textContent = '↔';
    const and = document.createElement('span');
    and.className = 'sr-only';
    and.textContent = t('question.associate.pairJoin');
    text.append(side(a, 'assoc-a'), ' ', arrow, and, ' ', side(b, 'assoc-b'));
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'assoc-remove';
    remove.setAttribute('aria-label', t('question.associate.removeLabel', { pair: pairName(items, a, b) }));
    remove.textContent = t('question.associate.remove');
    li.append(text, remove);
    return li;
  }

  // The count beside "Your pairs" and whether Add pair can add: the words the server writes (page.ts).
  function refresh(box) {
    const n = rows(box).length;
    const max = maxOf(box);
    box.querySelector('.assoc-count').textContent =
      n === 0 ? t('question.associate.noneYet') : max !== null ? t('question.associate.countOfMax', { n, max }) : window.AssayI18n.number(n);
    box.querySelector('.assoc-add').setAttribute('aria-disabled', String(max !== null && n >= max));
  }

  const say = (box, text) => {
    box.querySelector('.assoc-status').textContent = text;
  };
  const changed = (box) => box.dispatchEvent(new Event('change', { bubbles: true }));

  function add(box) {
    const first = box.querySelector('.assoc-first');
    const second = box.querySelector('.assoc-second');
    const items = itemsOf(box);
    const max = maxOf(box);
    if (max !== null && rows(box).length >= max) return say(box, t('question.associate.mostPairs', { max }));
    if (!first.value || !second.value) return say(box, t('question.associate.chooseBoth'));
    if (first.value === second.value) return say(box, t('question.associate.chooseDifferent'));
    // Shown as the server stores it (and a reload shows it): the pair's items in item order, the pairs sorted so.
    const order = [...items.keys()];
    const [a, b] = order.indexOf(first.value) < order.indexOf(second.value) ? [first.value, second.value] : [second.value, first.value];
    const pair = pairName(items, a, b);
    if (rows(box).some((r) => r.dataset.a === a && r.dataset.b === b)) return say(box, t('question.associate.alreadyPaired', { pair }));
    const rank = (x, y) => order.indexOf(x) * order.length + order.indexOf(y);
    const after = rows(box).find((r) => rank(r.dataset.a, r.dataset.b) > rank(a, b));
    box.querySelector('.assoc-pairs').insertBefore(row(box, a, b), after || null);
    first.value = '';
    second.value = '';
    refresh(box);
    say(box, t('question.associate.pairMade', { pair }));
    changed(box);
  }

  function remove(box, button) {
    const li = button.closest('.assoc-pair');
    const next = li.nextElementSibling || li.previousElementSibling;
    const pair = pairName(itemsOf(box), li.dataset.a, li.dataset.b);
    li.remove();
    refresh(box);
    (next ? next.querySelector('.assoc-remove') : box.querySelector('.assoc-first')).focus();
    say(box, t('question.associate.pairRemoved', { pair }));
    changed(box);
  }

  window.AssayQuestionTypes.register('associate', {
    read(fs) {
      const pairs = rows(fs.querySelector('.assoc')).map((r) => [r.dataset.a, r.dataset.b]);
      return pairs.length > 0 ? pairs : null;
    },
    write(fs, value) {
      const box = fs.querySelector('.assoc');
      const list = box.querySelector('.assoc-pairs');
      const items = itemsOf(box);
      list.replaceChildren();
      for (const p of Array.isArray(value) ? value : []) if (Array.isArray(p) && items.has(p[0]) && items.has(p[1])) list.append(row(box, p[0], p[1]));
      refresh(box);
    },
    setup(fs) {
      const box = fs.querySelector('.assoc');
      box.addEventListener('click', (event) => {
        const button = event.target.closest && event.target.closest('button');
        if (!button || button.disabled) return;
        if (button.classList.contains('assoc-add')) add(box);
        else if (button.classList.contains('assoc-remove')) remove(box, button);
      });
      // Choosing in First item or Second item is not yet an answer: only Add pair and Remove change it.
      box.addEventListener('change', (event) => {
        if (event.target.tagName === 'SELECT') event.stopPropagation();
      });
    },
    typed: false,
  });
})();
