import type { Passage, Question } from '../../catalog/schemas.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { messageWithMarkup } from '../../../platform/web/message-markup.js';
import type { PageTexts } from './page-content.js';

/**
 * Passages on the test page (docs/student-page-question-types.md
 * "Passages"): questions that follow one another with the same passage are
 * one group, the passage shown once as a region named by its title, beside
 * the questions on wide screens (scrolling on its own when long) and above
 * them on phones (student.css). A passage shown earlier on the page is not
 * shown again: a later question that names it links back to it.
 */
export interface QuestionRun {
  passage: Passage | null;
  /** The passage's first showing on the page; false: it is shown above, and the run links to it. */
  firstShowing: boolean;
  questions: Array<{ q: Question; n: number }>;
}

/** The page's questions (each with its number) in runs of one passage (or none). */
export function passageRuns(questions: ReadonlyArray<{ q: Question; n: number }>, passages: readonly Passage[], shown: Set<string>): QuestionRun[] {
  const byId = new Map(passages.map((p) => [p.id, p]));
  const runs: QuestionRun[] = [];
  for (const item of questions) {
    const passage = (item.q.passageId !== undefined && byId.get(item.q.passageId)) || null;
    const last = runs.at(-1);
    if (last && last.passage?.id === passage?.id) {
      last.questions.push(item);
      continue;
    }
    const firstShowing = passage !== null && !shown.has(passage.id);
    if (passage) shown.add(passage.id);
    runs.push({ passage, firstShowing, questions: [item] });
  }
  return runs;
}

const anchor = (p: Passage) => `passage-${p.id}`;

/** A run's markup: its questions alone, or the passage's region and its questions side by side. */
export function passageRun(run: QuestionRun, texts: PageTexts, block: (q: Question, n: number) => SafeHtml, mark: SafeHtml | '' = ''): SafeHtml {
  const blocks = run.questions.map(({ q, n }) => block(q, n));
  if (!run.passage) return html`${blocks}`;
  const p = run.passage;
  // An untitled passage is named by the page's word for one (staff views say "Passage", catalog/passages.ts).
  const name = p.title?.trim() || texts.t.t('test.passage');
  if (!run.firstShowing) {
    const link = html`<a href="#${anchor(p)}">${name}</a>`;
    return html`<div class="passage-group passage-again"><p class="passage-link">${messageWithMarkup(texts.t, 'test.passageShownAbove', {}, { passage: link })}</p>${blocks}</div>`;
  }
  const text = texts.block(`passages.${p.id}.text`, p.text);
  // tabindex: a region that scrolls on its own must be reachable by keyboard to scroll it.
  return html`<div class="passage-group">
<section class="passage" id="${anchor(p)}" aria-labelledby="${anchor(p)}-title" tabindex="0"${mark}>
<h3 class="passage-title" id="${anchor(p)}-title">${name}</h3>
<div class="passage-text${texts.markdown ? ' content' : ''}">${text}</div>
</section>
<div class="passage-questions">${blocks}</div>
</div>`;
}
