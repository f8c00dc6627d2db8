import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError, type ErrorEnvelope } from '../helpers/expect-error.js';
import { sectionedTest } from '../helpers/sectioned.js';

/** Authoring validation of sections, pools and the four new types through POST /api/admin/v1/tests. */

const A = '/api/admin/v1';
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const counts = async () => (await h.pool.query('SELECT (SELECT count(*) FROM tests)::int AS t, (SELECT count(*) FROM test_versions)::int AS v')).rows[0];

/** A hybrid test holding these questions in one section. */
const oneSection = (questions: unknown[], section: Record<string, unknown> = {}): TestInput =>
  sectionedTest({ sections: [{ id: 's1', title: 'Only', questions, ...section } as never] });

/** Posts a body that must be refused: 400 invalid_request, every detail returned, nothing stored. */
async function refused(body: unknown): Promise<ErrorEnvelope['error']['details'] & object> {
  const before = await counts();
  const res = await h.admin('POST', `${A}/tests`, body);
  const err = expectError(res, 400, 'invalid_request');
  expect(await counts()).toEqual(before);
  return err.error.details ?? [];
}

const matching = (over: Record<string, unknown> = {}) => ({
  id: 'm',
  type: 'matching',
  prompt: 'Match',
  points: 2,
  stems: [
    { id: 's1', text: 'One' },
    { id: 's2', text: 'Two' },
  ],
  choices: [
    { id: 'c1', text: 'Uno' },
    { id: 'c2', text: 'Dos' },
  ],
  correct: { s1: 'c1', s2: 'c2' },
  ...over,
});
const blanks = (over: Record<string, unknown> = {}) => ({
  id: 'f',
  type: 'fill_blanks',
  prompt: 'Fill',
  points: 2,
  text: 'A {{x}} and a {{y}}.',
  blanks: [
    { id: 'x', kind: 'text', acceptedAnswers: ['cat'] },
    { id: 'y', kind: 'choice', options: [{ id: 'o1', text: 'dog' }, { id: 'o2', text: 'cow' }], correctOptionId: 'o1' },
  ],
  ...over,
});
const upload = (over: Record<string, unknown> = {}) => ({ id: 'u', type: 'file_upload', prompt: 'Upload', points: 2, accept: ['application/pdf'], ...over });
const single = (id: string, points = 1) => ({ id, type: 'single_choice' as const, prompt: id, points, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionId: 'a' });

describe('matching', () => {
  it('names a correct entry for an unknown stem, one naming an unknown choice, and a stem without an entry', async () => {
    const d = await refused(oneSection([matching({ correct: { s1: 'c9', nope: 'c1' } })]));
    expect(d).toEqual(
      expect.arrayContaining([
        { field: 'sections.0.questions.0.correct.nope', message: expect.stringContaining('"nope" is not one of the stems') },
        { field: 'sections.0.questions.0.correct.s1', message: expect.stringContaining('"c9" is not one of the choices') },
        { field: 'sections.0.questions.0.correct', message: expect.stringContaining('stem "s2"') },
      ]),
    );
    expect(d).toHaveLength(3);
  });

  it('names duplicate stem and choice ids', async () => {
    const d = await refused(
      oneSection([matching({ stems: [{ id: 's1', text: 'One' }, { id: 's1', text: 'Again' }], choices: [{ id: 'c1', text: 'Uno' }, { id: 'c1', text: 'Eins' }], correct: { s1: 'c1' } })]),
    );
    expect(d.map((x) => x.field).sort()).toEqual(['sections.0.questions.0.choices.1.id', 'sections.0.questions.0.stems.1.id']);
  });
});

describe('fill_blanks', () => {
  it('names a blank placed in text without a definition, and a definition not placed', async () => {
    const d = await refused(oneSection([blanks({ text: 'A {{x}} and a {{z}}.' })]));
    expect(d).toEqual(
      expect.arrayContaining([
        { field: 'sections.0.questions.0.text', message: expect.stringContaining('"{{z}}", which has no definition') },
        { field: 'sections.0.questions.0.blanks.1.id', message: expect.stringContaining('blank "y" is not placed in text') },
      ]),
    );
    expect(d).toHaveLength(2);
  });

  it('names duplicate blank ids and duplicate options of a choice blank', async () => {
    const d = await refused(
      oneSection([
        blanks({
          text: 'A {{x}}.',
          blanks: [
            { id: 'x', kind: 'text', acceptedAnswers: ['cat'] },
            { id: 'x', kind: 'choice', options: [{ id: 'o1', text: 'dog' }, { id: 'o1', text: 'cow' }], correctOptionId: 'o1' },
          ],
        }),
      ]),
    );
    const fields = d.map((x) => x.field);
    expect(fields).toContain('sections.0.questions.0.blanks.1.id');
    expect(fields).toContain('sections.0.questions.0.blanks.1.options.1.id');
  });
});

describe('ordering, options, questions and sections', () => {
  it('names duplicate item ids of an ordering question and duplicate option ids of a choice question', async () => {
    const d = await refused(
      oneSection([
        { id: 'o', type: 'ordering', prompt: 'Order', points: 1, items: [{ id: 'i1', text: 'x' }, { id: 'i1', text: 'y' }, { id: 'i2', text: 'z' }] },
        { ...single('sc'), options: [{ id: 'a', text: 'A' }, { id: 'a', text: 'B' }] },
      ]),
    );
    expect(d.map((x) => x.field).sort()).toEqual(['sections.0.questions.0.items.1.id', 'sections.0.questions.1.options.1.id']);
  });

  it('names a question id repeated in another section, and a repeated section id', async () => {
    const d = await refused(
      sectionedTest({
        sections: [
          { id: 'same', title: 'One', questions: [single('q1')] },
          { id: 'same', title: 'Two', questions: [single('q1')] },
        ],
      }),
    );
    expect(d).toEqual(
      expect.arrayContaining([
        { field: 'sections.1.questions.0.id', message: expect.stringContaining('duplicates question id "q1"') },
        { field: 'sections.1.id', message: expect.stringContaining('duplicates section id "same"') },
      ]),
    );
  });

  it('refuses questions and sections together, and neither', async () => {
    const both = await refused({ ...sectionedTest(), questions: [single('q1')] });
    expect(both).toEqual([{ field: 'sections', message: expect.stringContaining('not both') }]);
    const { sections: _omitted, ...neither } = sectionedTest();
    const none = await refused(neither);
    expect(none).toEqual([{ field: 'questions', message: expect.stringContaining('required') }]);
  });
});

describe('pools', () => {
  it('names the section of a pool whose questions have unequal points', async () => {
    const d = await refused(sectionedTest({ sections: [{ id: 'pool', title: 'Mixed pool', draw: 1, questions: [single('q1', 1), single('q2', 2)] }] }));
    expect(d).toEqual([{ field: 'sections.0.draw', message: expect.stringMatching(/section "Mixed pool" is a pool.*equal points.*1, 2/) }]);
  });

  it('names a draw larger than its section', async () => {
    const d = await refused(sectionedTest({ sections: [{ title: 'Small', draw: 3, questions: [single('q1'), single('q2')] }] }));
    expect(d).toEqual([{ field: 'sections.0.draw', message: expect.stringContaining('draws 3 questions but section "Small" holds 2') }]);
  });
});

describe('file_upload', () => {
  it('refuses an empty accept list at its field', async () => {
    const d = await refused(oneSection([upload({ accept: [] })]));
    expect(d.map((x) => x.field)).toContain('sections.0.questions.0.accept');
  });

  it('names each accept entry that is not a MIME type', async () => {
    const d = await refused(oneSection([upload({ accept: ['application/pdf', 'pdf', '.png', 'image/*'] })]));
    expect(d).toEqual([
      { field: 'sections.0.questions.0.accept.1', message: expect.stringContaining('"pdf" is not a MIME type') },
      { field: 'sections.0.questions.0.accept.2', message: expect.stringContaining('".png" is not a MIME type') },
    ]);
  });

  it('refuses maxBytes over 20 MB at its field, and accepts 20 MB exactly', async () => {
    const d = await refused(oneSection([upload({ maxBytes: 20 * 1024 * 1024 + 1 })]));
    expect(d.map((x) => x.field)).toContain('sections.0.questions.0.maxBytes');
    const ok = await h.admin('POST', `${A}/tests`, oneSection([upload({ maxBytes: 20 * 1024 * 1024 })]));
    expect(ok.statusCode).toBe(201);
  });

  it('is refused in an auto-marked test', async () => {
    const d = await refused({ ...oneSection([upload()]), marking: 'auto', resultVisibility: 'immediate' });
    expect(d).toEqual([{ field: 'sections.0.questions.0.type', message: expect.stringContaining('manual or hybrid') }]);
  });
});

describe('a sectioned test read by the operator', () => {
  it('round-trips: GET, then PUT the same body, is accepted as the next version with equal content', async () => {
    const created = await h.admin('POST', `${A}/tests`, sectionedTest({ sections: [...sectionedTest().sections!, { title: 'Files', questions: [upload(), matching(), blanks()] as never }] }));
    expect(created.statusCode).toBe(201);
    const testId = created.json().testId as string;
    const read = (await h.admin('GET', `${A}/tests/${testId}`)).json();
    expect(read.questions).toBeUndefined();
    expect(read.sections.map((s: any) => s.title)).toEqual(['Pool', 'Skills', 'Writing', 'Files']);
    // The generated section id comes back and is kept on the write.
    expect(read.sections[3].id).toMatch(/^sec_/);
    const content = (t: any) => ({ title: t.title, description: t.description, durationMinutes: t.durationMinutes, proctoring: t.proctoring, marking: t.marking, resultVisibility: t.resultVisibility, passPercent: t.passPercent, sections: t.sections });
    const body = { ...content(read), proctoringRules: read.proctoringRules };
    const put = await h.admin('PUT', `${A}/tests/${testId}`, body);
    expect(put.statusCode).toBe(200);
    expect(put.json().version).toBe(2);
    const again = (await h.admin('GET', `${A}/tests/${testId}`)).json();
    expect(again.version).toBe(2);
    expect(content(again)).toEqual(content(read));
    // Defaults are written out in the read, so nothing changes by a second round trip either.
    expect(again.sections[3].questions[0]).toMatchObject({ type: 'file_upload', maxBytes: 10 * 1024 * 1024 });
  });
});
