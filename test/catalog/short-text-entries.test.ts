import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { markQuestion } from '../../src/modules/marking/auto-mark.js';
import type { Question } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { itemsPackage } from '../helpers/qti.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const shortText = (acceptedAnswers: unknown[], over: Record<string, unknown> = {}) => ({
  ...AUTO_TEST,
  questions: [{ id: 'st', type: 'short_text', prompt: 'Spell the colour', points: 2, acceptedAnswers, ...over }],
});
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
const importZip = (zip: Uint8Array) =>
  h.app.inject({ method: 'POST', url: `${A}/tests/import`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: Buffer.from(zip) });

describe('short_text entries through the API', () => {
  it('a test with entries (points, case, pattern) is stored and read back as written', async () => {
    const answers = ['colour', { text: 'color', points: 1 }, { text: 'COLOUR', points: 1.5, caseSensitive: true }, { text: 'colr', points: 0.5, pattern: 'col(ou?)?r' }];
    const res = await h.admin('POST', `${A}/tests`, shortText(answers));
    expect(res.statusCode).toBe(201);
    expect(res.json().questions[0]).toMatchObject({ acceptedAnswers: answers, caseSensitive: false, points: 2 });
  });

  it('a pattern that does not compile: 400 naming questions[i].acceptedAnswers[j].pattern with the reason, nothing created', async () => {
    const before = await countTests();
    const body = expectError(await h.admin('POST', `${A}/tests`, shortText(['colour', { text: 'aa', pattern: 'a{2' }])), 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'questions.0.acceptedAnswers.1.pattern', message: expect.stringMatching(/^has a \{ that is not a quantifier/) }]);
    const sub = expectError(await h.admin('POST', `${A}/tests`, shortText(['colour', { text: 'a', pattern: '[a-z-[aeiou]]' }])), 400, 'invalid_request');
    expect(sub.error.details![0]).toEqual({ field: 'questions.0.acceptedAnswers.1.pattern', message: expect.stringMatching(/^subtracts a character class/) });
    expect(await countTests()).toBe(before);
  });

  it('a pattern over 1,000 characters: 400 on that field', async () => {
    const body = expectError(await h.admin('POST', `${A}/tests`, shortText(['a', { text: 'a', pattern: 'a'.repeat(1_001) }])), 400, 'invalid_request');
    expect(body.error.details!.map((d) => d.field)).toContain('questions.0.acceptedAnswers.1.pattern');
  });

  it('points above the question, no entry worth the full points, a text the pattern rejects, caseSensitive false beside a pattern: 400 each', async () => {
    const over = expectError(await h.admin('POST', `${A}/tests`, shortText([{ text: 'colour', points: 3 }])), 400, 'invalid_request');
    expect(over.error.details).toEqual([{ field: 'questions.0.acceptedAnswers.0.points', message: "is 3, more than the question's 2 points" }]);
    const noFull = expectError(await h.admin('POST', `${A}/tests`, shortText([{ text: 'colour', points: 1 }, { text: 'color', points: 1.5 }])), 400, 'invalid_request');
    expect(noFull.error.details).toEqual([{ field: 'questions.0.acceptedAnswers', message: expect.stringMatching(/^no answer gives the full 2 points/) }]);
    const text = expectError(await h.admin('POST', `${A}/tests`, shortText([{ text: 'red', pattern: 'colou?r' }])), 400, 'invalid_request');
    expect(text.error.details).toEqual([{ field: 'questions.0.acceptedAnswers.0.text', message: expect.stringMatching(/does not match the pattern/) }]);
    const cs = expectError(await h.admin('POST', `${A}/tests`, shortText([{ text: 'color', pattern: 'colou?r', caseSensitive: false }])), 400, 'invalid_request');
    expect(cs.error.details).toEqual([{ field: 'questions.0.acceptedAnswers.0.caseSensitive', message: expect.stringMatching(/^cannot be false with a pattern/) }]);
  });

  it('an entry with an unknown field or negative points: 400 from the schema', async () => {
    expectError(await h.admin('POST', `${A}/tests`, shortText([{ text: 'colour', weight: 1 }])), 400, 'invalid_request');
    expectError(await h.admin('POST', `${A}/tests`, shortText(['colour', { text: 'color', points: -1 }])), 400, 'invalid_request');
  });
});

describe('QTI text entry with unequal points and per-entry case, through the import route', () => {
  it('imports as entries with points and caseSensitive; marks agree with mapResponse; the patternMask is ignored', async () => {
    for (const version of ['3.0', '2.2'] as const) {
      const res = await importZip(itemsPackage(['text-entry-unequal.xml'], version));
      expect(res.statusCode, version).toBe(201);
      expect(res.json().report.skipped).toEqual([]);
      const test = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json();
      const q = test.questions[0] as Question;
      expect(q).toEqual({
        id: 'element-7',
        type: 'short_text',
        prompt: 'Give the chemical symbol of sodium.',
        points: 2,
        acceptedAnswers: ['Na', { text: 'sodium', points: 1, caseSensitive: false }, { text: 'NA', points: 0.5 }],
        caseSensitive: true,
      });
      // mapResponse: "Na" 2, "SODIUM" 1 (case-insensitive entry), "NA" 0.5, "na" 0 (both Na and NA are case-sensitive).
      const mark = (v: string) => markQuestion(q, v);
      expect([mark('Na'), mark('SODIUM'), mark('NA'), mark('na'), mark('1Na')]).toEqual([2, 1, 0.5, 0, 0].map((points) => ({ kind: 'auto', points })));
    }
  });
});

describe('QTI export of short_text entries, re-imported through the routes', () => {
  const TEST: TestInput = {
    ...AUTO_TEST,
    title: 'Entries round trip',
    questions: [
      // The plainest form of each entry (the importer's), best first (the export's order).
      { id: 'mapped', type: 'short_text', prompt: 'Symbol of sodium?', points: 2, caseSensitive: true, acceptedAnswers: ['Na', { text: 'sodium', points: 1, caseSensitive: false }, { text: 'NA', points: 0.5 }] },
      {
        id: 'patterned',
        type: 'short_text',
        prompt: 'Spell the colour word',
        points: 3,
        caseSensitive: false,
        acceptedAnswers: [{ text: 'colour', pattern: '[Cc]olou?r' }, 'hue', { text: 'COLR', points: 1, caseSensitive: true }, { text: 'kulr', points: 0.5, pattern: 'k[ou]l+(ou?)?r' }],
      },
    ],
  };

  it('export → import gives the same questions: a mapping with per-entry values and case, patternMatch branches best first', async () => {
    const created = (await h.admin('POST', `${A}/tests`, TEST)).json();
    const zip = await h.admin('GET', `${A}/tests/${created.testId}/export?format=qti3`);
    expect(zip.statusCode).toBe(200);
    const files = unzipSync(zip.rawPayload);
    const mapped = new TextDecoder().decode(files['items/mapped.xml']);
    expect(mapped).toContain('<qti-map-entry map-key="sodium" mapped-value="1" case-sensitive="false"/><qti-map-entry map-key="NA" mapped-value="0.5" case-sensitive="true"/>');
    const patterned = new TextDecoder().decode(files['items/patterned.xml']);
    expect(patterned).not.toContain('<qti-mapping');
    expect(patterned).toContain('<qti-response-if><qti-or><qti-pattern-match pattern="[Cc]olou?r"><qti-variable identifier="RESPONSE"/></qti-pattern-match>');
    expect(patterned).toContain('<qti-response-else-if><qti-string-match case-sensitive="true"><qti-variable identifier="RESPONSE"/><qti-base-value base-type="string">COLR</qti-base-value></qti-string-match>');
    const again = await importZip(zip.rawPayload);
    expect(again.statusCode).toBe(201);
    expect(again.json().report.skipped).toEqual([]);
    const a = (await h.admin('GET', `${A}/tests/${created.testId}`)).json();
    const b = (await h.admin('GET', `${A}/tests/${again.json().testId}`)).json();
    expect(b.questions).toEqual(a.questions);
    expect(b.questions).toEqual(TEST.questions);
    const q = b.questions[1] as Question;
    const marks = ['Color', 'colour', 'HUE', 'COLR', 'colr', 'kulr', 'kollour'].map((v) => markQuestion(q, v));
    expect(marks).toEqual([3, 3, 3, 1, 0, 0.5, 0.5].map((points) => ({ kind: 'auto', points })));
  });
});
