import { html, SafeHtml } from '../../../../platform/web/html.js';
import type { Translator } from '../../../../platform/i18n/catalogue.js';
import type { PageTexts } from '../../content/page-texts.js';
import type { AnswerJson, FieldContext } from '../definition.js';
import { HOTSPOT_PLACEHOLDER, type HotTextQuestion } from './hot-text-schema.js';

/**
 * The student page's part and the staff's view of a hot text question. The
 * whole text is rendered first (escaped, or Markdown: a placeholder passes
 * through rendering unchanged), then each `{{id}}` in the output is replaced,
 * so emphasis or a list around a phrase still works (as fill_blanks does).
 */

const chosenIds = (value: AnswerJson): Set<string> => new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The text rendered with each placeholder replaced by `part(hotspot)`; an unknown id stays as written. */
function withHotspots(q: HotTextQuestion, texts: PageTexts, className: string, part: (h: HotTextQuestion['hotspots'][number]) => SafeHtml): SafeHtml {
  const byId = new Map(q.hotspots.map((h) => [h.id, h]));
  const rendered = texts.block(`${q.id}.text`, q.text).toString();
  const out = rendered.replace(new RegExp(HOTSPOT_PLACEHOLDER.source, 'g'), (whole: string, id: string) => {
    const h = byId.get(id);
    return h ? part(h).toString() : whole;
  });
  const body = new SafeHtml(out);
  return texts.markdown ? html`<div class="${className} content">${body}</div>` : html`<p class="${className}">${body}</p>`;
}

/** How many may be chosen, in the page's words. */
export function choiceHint(maxChoices: number | undefined, t: Translator): string {
  if (maxChoices === undefined) return t.t('question.hotText.hintAll');
  return maxChoices === 1 ? t.t('question.hotText.hintOne') : t.t('question.hotText.hintUpTo', { max: maxChoices });
}

/**
 * Each phrase a toggle button in the text, named by its phrase (plain words
 * for a Markdown phrase, as choice options carry them) and saying whether it
 * is chosen with `aria-pressed`. student.js refuses a press past maxChoices
 * and says so in the part's polite live region.
 */
export function hotTextPage(q: HotTextQuestion, ctx: FieldContext): SafeHtml {
  const chosen = chosenIds(ctx.value);
  const { texts, id } = ctx;
  const text = withHotspots(
    q,
    texts,
    'hot-text',
    (h) =>
      html`<button type="button" class="hot-phrase" data-hotspot-id="${h.id}" aria-pressed="${chosen.has(h.id) ? 'true' : 'false'}"${texts.markdown ? html` aria-label="${texts.text(h.phrase)}"` : ''}>${texts.inline(`${q.id}.hotspots.${h.id}`, h.phrase)}</button>`,
  );
  const { t } = texts;
  const count = q.maxChoices !== undefined ? t.t('question.hotText.countOfMax', { count: chosen.size, max: q.maxChoices }) : t.t('question.hotText.count', { count: chosen.size });
  return html`<p class="hint" id="${id}-hot-hint">${choiceHint(q.maxChoices, t)}</p>
<div class="hot-text-box" data-max-choices="${q.maxChoices ?? ''}" role="group" aria-label="${t.t('question.hotText.groupLabel', { where: ctx.where })}" aria-describedby="${id}-hot-hint">${text}</div>
<p class="hot-count" id="${id}-hot-count">${count}</p>
<p class="sr-only hot-live" role="status" aria-live="polite"></p>`;
}

/** The text with each phrase said to be chosen or not, right or wrong, in words beside it. */
export function hotTextReview(q: HotTextQuestion, value: AnswerJson, texts: PageTexts): SafeHtml {
  const chosen = chosenIds(value);
  const correct = new Set(q.correct);
  const text = withHotspots(q, texts, 'answer answer-hot-text', (h) => {
    const phrase = texts.inline(`${q.id}.hotspots.${h.id}`, h.phrase);
    const picked = chosen.has(h.id);
    const key = correct.has(h.id);
    if (picked) {
      return html`<mark>${phrase}</mark> <span class="hint">(chosen, ${key ? html`<span class="badge badge-right">right</span>` : html`<span class="badge badge-wrong">wrong</span>`})</span>`;
    }
    return key ? html`<u>${phrase}</u> <span class="hint">(not chosen; a correct phrase)</span>` : phrase;
  });
  return html`${chosen.size === 0 ? html`<p class="empty">Not answered.</p>` : ''}${text}`;
}
