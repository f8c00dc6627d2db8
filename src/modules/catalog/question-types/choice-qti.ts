import type { ResponseDeclaration } from '../interchange/response-processing.js';
import { declOf, idMap, promptOf, textIn, type Ctx } from '../interchange/qti-item-context.js';
import type { TextWriter } from '../interchange/qti-writer.js';
import { elements, esc, type XElement } from '../interchange/xml.js';
import type { ChoiceOption } from './choice-options.js';

/**
 * A choice interaction both ways, as the two choice types share it: what
 * a read takes of it (its options under Assay ids, the shuffle, the prompt,
 * the declaration), and the interaction written back. qti-items.ts reads the
 * interaction and hands it to the single or multiple choice type by its
 * max-choices.
 */
export interface ChoiceRead {
  decl: ResponseDeclaration;
  options: ChoiceOption[];
  /** QTI choice identifier → Assay option id. */
  ids: Map<string, string>;
  /** The QTI choice identifiers, in the interaction's order. */
  qtiIds: string[];
  shuffle: { shuffleOptions?: true };
  prompt: string;
}

export function readChoice(ctx: Ctx, it: XElement): ChoiceRead | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const choices = elements(it, 'qti-simple-choice');
  if (choices.length < 2) return 'a choice interaction needs at least two choices';
  const ids = idMap(choices.map((c) => c.attrs['identifier'] ?? ''), 'o');
  const options = choices.map((c) => ({ id: ids.get(c.attrs['identifier'] ?? '')!, text: textIn(ctx, c) || '(empty)', ...(c.attrs['fixed'] === 'true' ? { fixed: true } : {}) }));
  const shuffle: { shuffleOptions?: true } = it.attrs['shuffle'] === 'true' ? { shuffleOptions: true } : {};
  const qtiIds = choices.map((c) => c.attrs['identifier'] ?? '');
  return { decl, options, ids, qtiIds, shuffle, prompt: promptOf(ctx, it) };
}

/** Whether a choice interaction takes one choice (max-choices 1, its default). */
export const singleChoiceInteraction = (it: XElement) => (it.attrs['max-choices'] ?? '1') === '1';

/** The choice interaction: `maxChoices` 1 for a single choice, 0 (no limit) for a multiple one. */
export function choiceXml(resp: string, options: ReadonlyArray<ChoiceOption>, maxChoices: number, shuffle: boolean, w: TextWriter): string {
  return (
    `<qti-choice-interaction response-identifier="${esc(resp)}" max-choices="${maxChoices}" shuffle="${shuffle}">` +
    options.map((o) => `<qti-simple-choice identifier="${esc(o.id)}"${o.fixed ? ' fixed="true"' : ''}>${w.inline(o.text)}</qti-simple-choice>`).join('') +
    `</qti-choice-interaction>`
  );
}
