import { defineQuestionType } from '../definition.js';
import { associateAnswerText, associatePage, associateReview } from './page.js';
import { associateQti } from './qti.js';
import { Associate, AssociateAnswer, checkAnswer, checkAssociate, chosenKeys, markAssociate, pairKey, type AssociateQuestion } from './rules.js';

/** Associate: pair items of one list (QTI associateInteraction); rules.ts says what an item may do and how pairs are marked. */
export const associateType = defineQuestionType<AssociateQuestion>({
  type: 'associate',
  label: 'Associate',
  schema: Associate,
  part: { title: 'AssociatePart' },
  autoMarkable: true,
  check: checkAssociate,
  contentFields: (q) => q.items.map((it): [string, string] => [`items.${it.id}`, it.text]),
  // contentFields names an item by its id alone; a translation names the item's text.
  translatableFields: (q) => q.items.map((it): [string, string] => [`items.${it.id}.text`, it.text]),
  answer: {
    schema: AssociateAnswer,
    check: checkAnswer,
    answered: (_q, value) => Array.isArray(value) && value.length > 0,
  },
  mark: markAssociate,
  simulate: {
    correct: (q) => {
      const checked = checkAnswer(q, q.pairs.map((p) => [p.a, p.b]));
      return checked.ok ? checked.value : null;
    },
    // The first pair of items that is not in the key (none when every pair of items is keyed).
    wrong: (q) => {
      const keyed = new Set(q.pairs.map((p) => pairKey(q, p.a, p.b)));
      for (let i = 0; i < q.items.length; i++) {
        for (let j = i + 1; j < q.items.length; j++) {
          if (!keyed.has(`${q.items[i]!.id}+${q.items[j]!.id}`)) return [[q.items[i]!.id, q.items[j]!.id]];
        }
      }
      return null;
    },
  },
  // The keyed pairs as the options counted, `a+b` (ids in item order); a pair outside the key is not an option.
  statistics: {
    options: (q) => {
      const text = (id: string) => q.items.find((it) => it.id === id)?.text ?? id;
      return q.pairs.map((p) => {
        const [a, b] = pairKey(q, p.a, p.b).split('+') as [string, string];
        return { id: `${a}+${b}`, text: `${text(a)} and ${text(b)}`, correct: true };
      });
    },
    chosen: (q, value) => {
      const keyed = new Set(q.pairs.map((p) => pairKey(q, p.a, p.b)));
      return chosenKeys(q, value).filter((k) => keyed.has(k));
    },
  },
  page: associatePage,
  review: associateReview,
  answerText: associateAnswerText,
  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.associate.item', 'portal.editor.remove', 'portal.editor.associate.itemName', 'portal.editor.associate.addItem',
    'portal.editor.associate.chooseItem', 'portal.editor.associate.pairFirst', 'portal.editor.associate.pairSecond',
    'portal.editor.associate.pairPoints', 'portal.editor.associate.pairPointsHint', 'portal.editor.associate.pairName',
    'portal.editor.associate.addPair', 'portal.editor.type.associate', 'portal.editor.associate.items', 'portal.editor.associate.pairs',
    'portal.editor.associate.pairsHint', 'portal.editor.associate.maxAssociations', 'portal.editor.associate.maxAssociationsHint',
  ],
  clientMessages: [
    'question.associate.alreadyPaired',
    'question.associate.chooseBoth',
    'question.associate.chooseDifferent',
    'question.associate.countOfMax',
    'question.associate.mostPairs',
    'question.associate.noneYet',
    'question.associate.pair',
    'question.associate.pairJoin',
    'question.associate.pairMade',
    'question.associate.pairRemoved',
    'question.associate.remove',
    'question.associate.removeLabel',
  ],
  styles: { student: new URL('./student.css', import.meta.url) },
  qti: associateQti,
});
