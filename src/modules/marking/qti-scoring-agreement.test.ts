import { describe, expect, it } from 'vitest';
import { fixture, itemsPackage, type QtiVersion } from '../../../test/helpers/qti.js';
import type { AnswerValue } from '../attempts/answer-values.js';
import { markQuestion } from './auto-mark.js';
import type { Question } from '../catalog/schemas.js';
import { importQtiPackage } from '../catalog/interchange/qti-package.js';
import { mapResponse, readDeclarations } from '../catalog/interchange/response-processing.js';
import { parseXml } from '../catalog/interchange/xml.js';

/**
 * Scoring agreement: for each auto-marked fixture item, the points QTI's
 * response processing gives a response (worked out by hand from the item's
 * template, mapping and bounds) equal the points Assay's marking gives the
 * same answer to the imported question.
 */
async function imported(name: string, version: QtiVersion): Promise<Question> {
  const { input } = await importQtiPackage(itemsPackage([name], version));
  const q = input!.questions![0]!;
  return { ...q, id: q.id ?? 'q' } as Question;
}

type Row = [answer: AnswerValue, qtiPoints: number];
const TABLES: Record<string, Row[]> = {
  // match_correct: 1 for the correct response, else 0.
  'choice-single.xml': [['jupiter', 1], ['mars', 0], ['none', 0], [null, 0]],
  // map_response: nile → 2, amazon → 0, anything else the default 0.
  'choice-single-mapped.xml': [['nile', 2], ['amazon', 0], ['danube', 0]],
  // match_correct on a multiple response: the exact set, else 0.
  'choice-multiple.xml': [[['n2', 'n3'], 1], [['n3', 'n2'], 1], [['n2'], 0], [['n2', 'n3', 'n4'], 0], [[], 0]],
  // map_response: whale, bat +2; shark, trout −2; bounded to [0, 4].
  'choice-multiple-partial.xml': [
    [['whale', 'bat'], 4],
    [['whale'], 2],
    [['whale', 'shark'], 0],
    [['whale', 'bat', 'shark'], 2],
    [['shark', 'trout'], 0],
    [['whale', 'bat', 'shark', 'trout'], 0],
  ],
  // map_response, case-insensitive entries worth 1.5.
  'text-entry-string.xml': [['Canberra', 1.5], ['canberra', 1.5], ['CANBERRA ACT', 1.5], ['Sydney', 0], ['', 0]],
  // map_response, unequal values, upper bound 2: Na (exact) 2, sodium (any case) 1, NA (exact) 0.5.
  'text-entry-unequal.xml': [['Na', 2], ['SODIUM', 1], ['sodium', 1], ['NA', 0.5], ['na', 0], ['nA', 0], ['Sodium chloride', 0]],
  // qti-equal absolute ±0.05 (bounds included) → MAXSCORE 3.
  'text-entry-numeric-absolute.xml': [['9.81', 3], ['9.86', 3], ['9.76', 3], ['9.87', 0], ['9.75', 0]],
  // qti-equal relative 1 % of 200: [198, 202] → 2.
  'text-entry-numeric-relative.xml': [['200', 2], ['198', 2], ['202', 2], ['202.5', 0], ['197.9', 0]],
  'text-entry-integer.xml': [['8', 1], ['7', 0], ['80', 0]],
  // map_response on directed pairs, 1 per correct pair.
  'match.xml': [
    [{ hamlet: 'shakespeare', emma: 'austen', ulysses: 'joyce' }, 3],
    [{ hamlet: 'shakespeare', emma: 'austen', ulysses: 'dickens' }, 2],
    [{ hamlet: 'dickens', emma: 'joyce' }, 0],
  ],
  // match_correct on an ordered response: the exact sequence.
  'order.xml': [[['rome', 'magna', 'moon'], 1], [['magna', 'rome', 'moon'], 0], [['moon', 'magna', 'rome'], 0]],
  // The correct order → 4; else SCORE = 0 and + 1 per item at its index (the FEEDBACK and iSCORE statements change no score).
  'order-in-place.xml': [
    [['nile', 'amazon', 'yangtze', 'danube'], 4],
    [['amazon', 'nile', 'yangtze', 'danube'], 2],
    [['nile', 'amazon', 'danube', 'yangtze'], 2],
    [['danube', 'yangtze', 'amazon', 'nile'], 0],
  ],
  // isNull → nothing; match → SCORE + MAXSCORE (2); else nothing: SCORE keeps its default 0.
  'choice-feedback-rp.xml': [['c100', 2], ['c90', 0], ['c110', 0], [null, 0]],
  // not(isNull) → SCORE + mapResponse (went, case-insensitive, 1).
  'text-entry-feedback-rp.xml': [['went', 1], ['Went', 1], ['goed', 0], ['', 0]],
  // SCORE = mapResponse(B1) + mapResponse(B2), 1 each.
  'fill-blanks.xml': [
    [{ B1: 'hydrogen', B2: 'o' }, 2],
    [{ B1: 'H', B2: 'n' }, 1],
    [{ B1: 'Hydrogen' }, 1],
    [{ B1: 'helium', B2: 'n' }, 0],
  ],
  // map_response on gap pairs ("text gap"), 1 per correct pair.
  'gap-match.xml': [[{ g1: 'blue', g2: 'green' }, 2], [{ g1: 'green', g2: 'green' }, 1], [{ g1: 'red', g2: 'blue' }, 0]],
  // QTI 2.2 by hand: pacific, atlantic +1, baltic −1, bounded to [0, 2].
  'v22-choice.xml': [[['pacific', 'atlantic'], 2], [['pacific'], 1], [['pacific', 'baltic'], 0], [['pacific', 'atlantic', 'baltic'], 1]],
  // QTI 2.2 by hand: case-sensitive Au → 2.
  'v22-text-entry.xml': [['Au', 2], ['au', 0], ['AU', 0]],
};

const versionsOf = (name: string): QtiVersion[] => (name.startsWith('v22-') ? ['3.0'] : ['3.0', '2.2']);

describe('scoring agreement: QTI response processing and Assay marking give the same points', () => {
  for (const [name, rows] of Object.entries(TABLES)) {
    for (const version of versionsOf(name)) {
      it(`${name} (QTI ${name.startsWith('v22-') ? '2.2' : version})`, async () => {
        const q = await imported(name, version);
        for (const [answer, qtiPoints] of rows) {
          const mark = markQuestion(q, answer);
          expect({ answer, points: mark.kind === 'auto' ? mark.points : 'manual' }).toEqual({ answer, points: qtiPoints });
        }
      });
    }
  }

  /** Every subset of options: QTI's mapResponse (from the fixture's own mapping) against Assay's marking. */
  const subsets = <T>(xs: T[]): T[][] => xs.reduce<T[][]>((acc, x) => [...acc, ...acc.map((s) => [...s, x])], [[]]);
  it.each(['choice-multiple-partial.xml', 'v22-choice.xml', 'choice-single-mapped.xml'])('%s: every possible response agrees with mapResponse', async (name) => {
    const q = await imported(name, '3.0');
    const decl = readDeclarations(parseXml(fixture(name), name)).get('RESPONSE')!;
    const options = (q as Extract<Question, { options: unknown }>).options.map((o) => o.id);
    const responses = q.type === 'single_choice' ? options.map((o) => [o]) : subsets(options);
    for (const r of responses) {
      const mark = markQuestion(q, q.type === 'single_choice' ? r[0]! : r);
      expect({ r, points: mark.kind === 'auto' ? mark.points : null }).toEqual({ r, points: mapResponse(decl.mapping!, r) });
    }
  });

  it('text-entry-unequal.xml: each key in every capitalisation agrees with mapResponse (first matching entry, upper bound)', async () => {
    const q = await imported('text-entry-unequal.xml', '2.2');
    const decl = readDeclarations(parseXml(fixture('text-entry-unequal.xml'), 'text-entry-unequal.xml')).get('RESPONSE')!;
    const cases = (w: string): string[] => (w === '' ? [''] : cases(w.slice(1)).flatMap((rest) => [w[0]!.toLowerCase() + rest, w[0]!.toUpperCase() + rest]));
    for (const r of [...cases('na'), ...cases('sodium'), 'Nap', 'sod']) {
      const mark = markQuestion(q, r);
      expect({ r, points: mark.kind === 'auto' ? mark.points : null }).toEqual({ r, points: mapResponse(decl.mapping!, [r]) });
    }
  });

  it.each(['choice-multiple.xml'])('%s: every possible response agrees with match_correct', async (name) => {
    const q = await imported(name, '2.2');
    const decl = readDeclarations(parseXml(fixture(name), name)).get('RESPONSE')!;
    const correct = new Set(decl.correct);
    for (const r of subsets((q as Extract<Question, { options: unknown }>).options.map((o) => o.id))) {
      const qti = r.length === correct.size && r.every((x) => correct.has(x)) ? 1 : 0;
      const mark = markQuestion(q, r);
      expect({ r, points: mark.kind === 'auto' ? mark.points : null }).toEqual({ r, points: qti });
    }
  });

  it('manual items (essay, upload) are left to a reviewer, as QTI leaves them without response processing', async () => {
    for (const name of ['extended-text.xml', 'upload.xml']) expect(markQuestion(await imported(name, '3.0'), 'x')).toEqual({ kind: 'manual' });
  });
});
