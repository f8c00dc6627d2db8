// select_point on the test page: points placed on an image. Each point is a button over the image (moved with the
// arrow keys: 10 image pixels a press, 1 with Shift; Delete or Backspace removes it) and a line below it with its
// own Remove button; Add point puts one at the image's centre, and a tap or click on the image puts one there.
// Every change is announced in the part's polite live region as "Point 1 at 120, 80 — in Left ventricle" (or
// "near …", the area whose centre is nearest): the words the server's page part writes (view.ts).
(() => {
  'use strict';
  const STEP = 10;

  const parse = (text, fallback) => {
    try {
      return JSON.parse(text);
    } catch {
      return fallback;
    }
  };
  const rootOf = (fs) => fs.querySelector('.sp');
  const pointsOf = (root) => parse(root.dataset.points || '[]', []);
  const areasOf = (root) => parse(root.dataset.areas || '[]', []);
  const maxOf = (root) => Number(root.dataset.maxPoints) || 1;

  // The same rules as image-regions/geometry.ts: edges count as inside; a polygon's centre is its centroid.
  function contains(a, p) {
    const c = a.coords;
    if (a.shape === 'rect') return p.x >= c[0] && p.x <= c[2] && p.y >= c[1] && p.y <= c[3];
    if (a.shape === 'circle') return (p.x - c[0]) ** 2 + (p.y - c[1]) ** 2 <= c[2] ** 2;
    let inside = false;
    for (let i = 0, j = c.length - 2; i < c.length; j = i, i += 2) {
      const [xi, yi, xj, yj] = [c[i], c[i + 1], c[j], c[j + 1]];
      const cross = (xi - xj) * (p.y - yj) - (yi - yj) * (p.x - xj);
      if (Math.abs(cross) < 1e-9 && p.x >= Math.min(xi, xj) && p.x <= Math.max(xi, xj) && p.y >= Math.min(yi, yj) && p.y <= Math.max(yi, yj)) return true;
      if (yi > p.y !== yj > p.y && p.x < ((xj - xi) * (p.y - yi)) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
  }
  function centre(a) {
    const c = a.coords;
    if (a.shape === 'rect') return { x: (c[0] + c[2]) / 2, y: (c[1] + c[3]) / 2 };
    if (a.shape === 'circle') return { x: c[0], y: c[1] };
    let area = 0;
    let cx = 0;
    let cy = 0;
    for (let i = 0; i < c.length; i += 2) {
      const [x0, y0, x1, y1] = [c[i], c[i + 1], c[(i + 2) % c.length], c[(i + 3) % c.length]];
      const cross = x0 * y1 - x1 * y0;
      area += cross / 2;
      cx += (x0 + x1) * cross;
      cy += (y0 + y1) * cross;
    }
    return { x: cx / (6 * area), y: cy / (6 * area) };
  }
  const t = (key, values) => window.AssayI18n.t(key, values);
  // The area that counts the point, else the one whose centre is nearest; null without areas.
  function placeOf(areas, p) {
    const inside = areas.find((a) => contains(a, p));
    if (inside) return { area: inside, inside: true };
    let near = null;
    let best = Infinity;
    for (const a of areas) {
      const c = centre(a);
      const d = (c.x - p.x) ** 2 + (c.y - p.y) ** 2;
      if (d < best) [best, near] = [d, a];
    }
    return near ? { area: near, inside: false } : null;
  }
  function words(areas, p, n) {
    const place = placeOf(areas, p);
    const values = { n, x: String(Math.round(p.x)), y: String(Math.round(p.y)) };
    if (!place) return t('question.selectPoint.point', values);
    return t(place.inside ? 'question.selectPoint.pointIn' : 'question.selectPoint.pointNear', { ...values, area: place.area.label });
  }

  // The image's own size; null until it has loaded.
  function sizeOf(root) {
    const img = root.querySelector('.sp-image');
    return img && img.complete && img.naturalWidth > 0 ? { w: img.naturalWidth, h: img.naturalHeight } : null;
  }
  const clamp = (v, max) => Math.min(Math.max(0, Math.round(v)), max);

  function announce(root, text) {
    const live = root.querySelector('.sp-live');
    // Cleared first, so the same words said twice are still read out.
    live.textContent = '';
    window.setTimeout(() => (live.textContent = text), 30);
  }

  function render(root) {
    const points = pointsOf(root);
    const areas = areasOf(root);
    const max = maxOf(root);
    const size = sizeOf(root);
    const hint = root.querySelector('.hint').id;
    const layer = root.querySelector('.sp-markers');
    // The buttons are kept and updated, not rebuilt, so a moved point keeps the focus and is announced once (by the live region).
    while (layer.children.length > points.length) layer.lastElementChild.remove();
    points.forEach((p, i) => {
      let b = layer.children[i];
      if (!b) {
        b = document.createElement('button');
        b.type = 'button';
        b.className = 'sp-marker';
        b.dataset.index = String(i);
        b.textContent = String(i + 1);
        b.setAttribute('aria-describedby', hint);
        layer.append(b);
      }
      b.setAttribute('aria-label', words(areas, p, i + 1));
      b.hidden = !size;
      if (size) {
        b.style.left = `${(p.x / size.w) * 100}%`;
        b.style.top = `${(p.y / size.h) * 100}%`;
      }
    });
    const list = root.querySelector('.sp-list');
    list.replaceChildren(
      ...points.map((p, i) => {
        const li = document.createElement('li');
        const text = document.createElement('span');
        text.className = 'sp-where';
        text.textContent = words(areas, p, i + 1);
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'sp-remove';
        remove.dataset.index = String(i);
        remove.textContent = t('question.selectPoint.remove', { n: i + 1 });
        li.append(text, ' ', remove);
        return li;
      }),
    );
    root.querySelector('.sp-count').textContent = t('question.selectPoint.count', { placed: points.length, max });
    const add = root.querySelector('.sp-add');
    if (points.length >= max) add.setAttribute('aria-disabled', 'true');
    else add.removeAttribute('aria-disabled');
  }

  // Stores the points, redraws, tells the page the answer changed, and says what happened.
  function update(root, points, said, focusIndex) {
    root.dataset.points = JSON.stringify(points);
    render(root);
    root.dispatchEvent(new Event('change', { bubbles: true }));
    if (said) announce(root, said);
    if (focusIndex === 'add') root.querySelector('.sp-add').focus();
    else if (focusIndex !== undefined && document.activeElement !== root.querySelector(`.sp-marker[data-index="${focusIndex}"]`)) root.querySelector(`.sp-marker[data-index="${focusIndex}"]`)?.focus();
  }

  function place(root, p, focus) {
    const points = pointsOf(root);
    const max = maxOf(root);
    if (points.length >= max) {
      announce(root, t('question.selectPoint.allPlaced', { max }));
      return;
    }
    points.push(p);
    update(root, points, t('question.selectPoint.placed', { point: words(areasOf(root), p, points.length) }), focus ? points.length - 1 : undefined);
  }

  function remove(root, index) {
    const points = pointsOf(root);
    points.splice(index, 1);
    const next = points.length === 0 ? 'add' : Math.min(index, points.length - 1);
    update(root, points, t('question.selectPoint.removed', { n: index + 1, placed: points.length, max: maxOf(root) }), next);
  }

  function setup(fs) {
    const root = rootOf(fs);
    if (!root || root.dataset.bound) return;
    root.dataset.bound = 'yes';
    const img = root.querySelector('.sp-image');
    // The markers sit where they belong once the image's size is known.
    if (!sizeOf(root)) img.addEventListener('load', () => render(root), { once: true });
    render(root);

    root.querySelector('.sp-add').addEventListener('click', () => {
      const size = sizeOf(root);
      if (!size) return announce(root, t('question.selectPoint.notLoaded'));
      place(root, { x: Math.round(size.w / 2), y: Math.round(size.h / 2) }, true);
    });
    root.querySelector('.sp-figure').addEventListener('click', (event) => {
      if (event.target.closest('.sp-marker')) return;
      const size = sizeOf(root);
      if (!size) return;
      const box = img.getBoundingClientRect();
      place(root, { x: clamp(((event.clientX - box.left) / box.width) * size.w, size.w), y: clamp(((event.clientY - box.top) / box.height) * size.h, size.h) }, false);
    });
    root.addEventListener('click', (event) => {
      const button = event.target.closest('.sp-remove');
      if (button) remove(root, Number(button.dataset.index));
    });
    root.addEventListener('keydown', (event) => {
      const marker = event.target.closest('.sp-marker');
      if (!marker) return;
      const index = Number(marker.dataset.index);
      if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        return remove(root, index);
      }
      const move = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
      const size = sizeOf(root);
      if (!move || !size) return;
      event.preventDefault();
      const step = event.shiftKey ? 1 : STEP;
      const points = pointsOf(root);
      const p = points[index];
      points[index] = { x: clamp(p.x + move[0] * step, size.w), y: clamp(p.y + move[1] * step, size.h) };
      update(root, points, words(areasOf(root), points[index], index + 1), index);
    });
  }

  window.AssayQuestionTypes.register('select_point', {
    read(fs) {
      const points = pointsOf(rootOf(fs));
      return points.length > 0 ? points : null;
    },
    write(fs, value) {
      const root = rootOf(fs);
      root.dataset.points = JSON.stringify(Array.isArray(value) ? value.slice(0, maxOf(root)) : []);
      render(root);
    },
    setup,
    typed: false,
  });
})();
