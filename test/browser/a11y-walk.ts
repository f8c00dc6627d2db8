import type { CDPSession, Page } from 'playwright-core';

/**
 * The measurements behind docs/accessibility.md: a page walked by Tab alone
 * (or Shift+Tab), each focus stop's role and name read from Chromium's
 * accessibility tree through the DevTools protocol, whether its focus can be
 * seen (2.4.7) and is not hidden under a sticky bar or off screen (2.4.11);
 * the headings and landmarks of the tree (1.3.1, 2.4.1, 2.4.6); and every
 * control's target size (2.5.8). Each returns what it measured, so a test
 * failure names the element rather than a count.
 */

export interface FocusStop {
  /** A short DOM label for messages: tag, id or name, class. */
  element: string;
  role: string;
  name: string;
  /** The accessibility tree leaves the element out (aria-hidden, presentational): a focus stop a screen reader cannot announce. */
  ignored: boolean;
  /** The focus indicator: the computed outline (style and width) or box shadow, or '' when neither is drawn. */
  indicator: string;
  /** Some of the element is inside the viewport and on top there (not under a sticky bar or another layer). */
  seen: boolean;
}

interface AXValue {
  value?: unknown;
}
interface AXNode {
  nodeId: string;
  ignored: boolean;
  role?: AXValue;
  name?: AXValue;
  properties?: Array<{ name: string; value: AXValue }>;
  parentId?: string;
}

/**
 * What the page tells of its focused element: everything but the
 * accessibility tree's view, which the caller reads over CDP. Focus inside a
 * same-origin frame (the editor's preview) is followed into the frame: the
 * stop is the element there, measured in the top page's viewport.
 */
function describeFocus(): { element: string; indicator: string; seen: boolean } | null {
  let el = document.activeElement as HTMLElement | null;
  let frame: HTMLIFrameElement | null = null;
  while (el && el.tagName === 'IFRAME') {
    const inner = (el as HTMLIFrameElement).contentDocument?.activeElement as HTMLElement | null | undefined;
    if (!inner || inner === inner.ownerDocument.body) break;
    frame = el as HTMLIFrameElement;
    el = inner;
  }
  if (!el || el === document.body || el === document.documentElement) return null;
  const w = window as unknown as { __walkSeen?: Element[] };
  w.__walkSeen ??= [];
  if (w.__walkSeen.includes(el)) return null;
  w.__walkSeen.push(el);
  const style = el.ownerDocument.defaultView!.getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 ? `outline ${style.outlineStyle} ${style.outlineWidth}` : '';
  const shadow = style.boxShadow && style.boxShadow !== 'none' ? `box-shadow ${style.boxShadow}` : '';
  // Sample the part of the box inside the viewport (and inside its frame's box): any point where the element (or its label) is topmost counts.
  const r = el.getBoundingClientRect();
  const f = frame?.getBoundingClientRect();
  const dx = f ? f.left + frame!.clientLeft : 0;
  const dy = f ? f.top + frame!.clientTop : 0;
  const left = Math.max(r.left + dx, 0, f ? dx : 0);
  const right = Math.min(r.right + dx, window.innerWidth, f ? dx + frame!.clientWidth : Infinity);
  const top = Math.max(r.top + dy, 0, f ? dy : 0);
  const bottom = Math.min(r.bottom + dy, window.innerHeight, f ? dy + frame!.clientHeight : Infinity);
  let seen = false;
  if (right > left && bottom > top) {
    const labels = 'labels' in el && el.labels ? [...(el.labels as NodeListOf<HTMLLabelElement>)] : [];
    for (const fx of [0.5, 0.2, 0.8]) {
      for (const fy of [0.5, 0.2, 0.8]) {
        const [x, y] = [left + (right - left) * fx, top + (bottom - top) * fy];
        if (frame && document.elementFromPoint(x, y) !== frame) continue;
        const hit = el.ownerDocument.elementFromPoint(x - dx, y - dy);
        if (hit && (el.contains(hit) || labels.some((l) => l.contains(hit)))) seen = true;
      }
    }
  }
  const id = el.id ? `#${el.id}` : el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : '';
  const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
  return { element: `${frame ? `${frame.title} frame: ` : ''}${el.tagName.toLowerCase()}${id}${cls}`, indicator: outline || shadow, seen };
}

/** The focused element itself, inside a same-origin frame when the focus is there (as describeFocus finds it). */
const FOCUSED = `(() => {
  let e = document.activeElement;
  while (e && e.tagName === 'IFRAME') {
    const inner = e.contentDocument && e.contentDocument.activeElement;
    if (!inner || inner === inner.ownerDocument.body) break;
    e = inner;
  }
  return e;
})()`;

async function focusedAXNode(cdp: CDPSession): Promise<AXNode | null> {
  const { result } = await cdp.send('Runtime.evaluate', { expression: FOCUSED });
  if (!result.objectId) return null;
  const { nodes } = (await cdp.send('Accessibility.getPartialAXTree', { objectId: result.objectId, fetchRelatives: false })) as { nodes: AXNode[] };
  await cdp.send('Runtime.releaseObject', { objectId: result.objectId });
  return nodes[0] ?? null;
}

/**
 * Walks the page by Tab (or Shift+Tab) from where the focus is until it
 * leaves the document or comes back to a stop already seen, and returns the
 * stops in order. Two animation frames after each key let the browser finish
 * scrolling the element into view before it is measured.
 */
export async function walkByKeyboard(page: Page, key: 'Tab' | 'Shift+Tab', limit = 400): Promise<FocusStop[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Accessibility.enable');
  await page.evaluate(() => delete (window as unknown as { __walkSeen?: Element[] }).__walkSeen);
  const stops: FocusStop[] = [];
  try {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press(key);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const seen = await page.evaluate(describeFocus);
      if (!seen) return stops;
      const ax = await focusedAXNode(cdp);
      stops.push({ ...seen, role: String(ax?.role?.value ?? ''), name: String(ax?.name?.value ?? '').trim(), ignored: ax?.ignored ?? true });
    }
    throw new Error(`the ${key} walk did not end within ${limit} stops`);
  } finally {
    await cdp.detach();
  }
}

/** Focus stops that break 2.4.7 / 2.4.11 / 4.1.2 (no name, ignored by the tree, no indicator, hidden), one line each. */
export function focusProblems(stops: FocusStop[]): string[] {
  const out: string[] = [];
  for (const s of stops) {
    const what = `${s.element} (${s.role} "${s.name}")`;
    if (s.ignored) out.push(`${what}: focusable but left out of the accessibility tree`);
    if (!s.name) out.push(`${what}: no accessible name`);
    if (!s.indicator) out.push(`${what}: no visible focus indicator`);
    if (!s.seen) out.push(`${what}: focused but hidden (off screen or under another layer)`);
  }
  return out;
}

/** The headings (level and name) and landmark roles of the page's accessibility tree, in document order. */
export async function outlineOf(page: Page): Promise<{ headings: Array<{ level: number; name: string }>; landmarks: string[] }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Accessibility.enable');
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AXNode[] };
    const headings: Array<{ level: number; name: string }> = [];
    const landmarks: string[] = [];
    for (const n of nodes) {
      if (n.ignored) continue;
      const role = String(n.role?.value ?? '');
      if (role === 'heading') {
        const level = Number(n.properties?.find((p) => p.name === 'level')?.value.value ?? 0);
        headings.push({ level, name: String(n.name?.value ?? '').trim() });
      }
      if (['banner', 'main', 'contentinfo', 'navigation', 'complementary', 'region', 'search', 'form'].includes(role)) landmarks.push(role);
    }
    return { headings, landmarks };
  } finally {
    await cdp.detach();
  }
}

/** What is wrong with an outline: not exactly one h1, a heading before it, or a level skipped on the way down. */
export function outlineProblems(headings: Array<{ level: number; name: string }>): string[] {
  const out: string[] = [];
  const ones = headings.filter((x) => x.level === 1);
  if (ones.length !== 1) out.push(`${ones.length} h1 headings: ${ones.map((x) => `"${x.name}"`).join(', ')}`);
  if (headings[0] && headings[0].level !== 1) out.push(`the first heading is h${headings[0].level} "${headings[0].name}"`);
  for (let i = 1; i < headings.length; i++) {
    const [prev, cur] = [headings[i - 1]!, headings[i]!];
    if (cur.level > prev.level + 1) out.push(`h${prev.level} "${prev.name}" is followed by h${cur.level} "${cur.name}"`);
  }
  return out;
}

export interface TargetMeasure {
  element: string;
  width: number;
  height: number;
}

/**
 * 2.5.8 Target Size (Minimum): every visible, enabled control's target is at
 * least 24×24 CSS px, or is spaced (a 24 px circle on its centre touches no
 * other target and no other small target's circle), or is a link inside a
 * sentence (the inline exception). A control's target includes a label that
 * wraps it: a click anywhere on that label operates it. Returns the targets
 * that meet none of these.
 */
export function smallTargets(page: Page): Promise<TargetMeasure[]> {
  return page.evaluate(() => {
    const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    const all = [...document.querySelectorAll<HTMLElement>(selector)].filter((el) => {
      if ((el as HTMLButtonElement).disabled) return false;
      // Rendered only: a closed <details> keeps its contents' boxes but does not draw them (content-visibility).
      return el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true } as CheckVisibilityOptions);
    });
    const inSentence = (el: HTMLElement) =>
      el.tagName === 'A' && getComputedStyle(el).display === 'inline' && (el.parentElement?.textContent ?? '').trim().length > (el.textContent ?? '').trim().length;
    const boxes = all.map((el) => {
      const wrap = el.closest('label');
      const r = (wrap && wrap !== el ? wrap : el).getBoundingClientRect();
      const label = el.id ? `#${el.id}` : el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : `"${(el.textContent ?? el.getAttribute('aria-label') ?? '').trim().slice(0, 30)}"`;
      return { el, element: `${el.tagName.toLowerCase()}${label}`, r, small: r.width < 24 - 0.01 || r.height < 24 - 0.01, inline: inSentence(el) };
    });
    const centre = (r: DOMRect) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
    const distToRect = (p: { x: number; y: number }, r: DOMRect) => Math.hypot(Math.max(r.left - p.x, 0, p.x - r.right), Math.max(r.top - p.y, 0, p.y - r.bottom));
    return boxes
      .filter((b) => b.small && !b.inline)
      .filter((b) => {
        const c = centre(b.r);
        return boxes.some((o) => {
          if (o === b || o.el.contains(b.el) || b.el.contains(o.el)) return false;
          return o.small ? Math.hypot(centre(o.r).x - c.x, centre(o.r).y - c.y) < 24 : distToRect(c, o.r) < 12;
        });
      })
      .map((b) => ({ element: b.element, width: Math.round(b.r.width * 10) / 10, height: Math.round(b.r.height * 10) / 10 }));
  });
}
