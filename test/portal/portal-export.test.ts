import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalJson } from '../helpers/authoring.js';
import { auditActions, portalGet, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * The portal's Export (GET /portal/tests/:testId/export): who may, which
 * content (the editor's draft, the Tests page's latest version), the file's
 * name, the audit entry, the refusals; and the round trip through the
 * portal's own Import page, QTI and CSV, giving the same questions, keys and
 * points.
 */
let h: Harness;
const users = {} as Record<'admin' | 'author' | 'reviewer' | 'viewer' | 'operator', PortalUser>;
let authorB: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
  authorB = await signedIn(h, 'author', h.b.institutionId);
});
afterAll(() => h.close());

/** Nine types the CSV holds, in two sections, one shuffled; markdown off so both formats carry the texts alike. */
const MIXED: TestInput = {
  title: 'Énergie & matière: “quiz” 1',
  description: '',
  durationMinutes: 25,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: null,
  contentFormat: 'plain',
  sections: [
    {
      title: 'Warm-up',
      shuffleQuestions: true,
      questions: [
        { id: 'q_sc', type: 'single_choice', prompt: 'Which planet is the largest?', points: 2, options: [{ id: 'a', text: 'Mars' }, { id: 'b', text: 'Jupiter' }, { id: 'c', text: 'Venus' }], correctOptionId: 'b', shuffleOptions: true },
        { id: 'q_mc', type: 'multiple_choice', prompt: 'Which are prime?', points: 3, options: [{ id: 'a', text: '2' }, { id: 'b', text: '4' }, { id: 'c', text: '7' }], correctOptionIds: ['a', 'c'], partialCredit: true },
        { id: 'q_st', type: 'short_text', prompt: 'Capital of France?', points: 1, acceptedAnswers: ['Paris', 'Paris, France'], caseSensitive: false },
        { id: 'q_nu', type: 'numeric', prompt: 'Pi to two places?', points: 1.5, answer: 3.14, tolerance: 0.005 },
      ],
    },
    {
      title: 'Deeper',
      questions: [
        { id: 'q_ma', type: 'matching', prompt: 'Match each country to its capital.', points: 3, stems: [{ id: 's1', text: 'France' }, { id: 's2', text: 'Spain' }], choices: [{ id: 'c1', text: 'Madrid' }, { id: 'c2', text: 'Paris' }, { id: 'c3', text: 'Rome' }], correct: { s1: 'c2', s2: 'c1' } },
        { id: 'q_or', type: 'ordering', prompt: 'Smallest first.', points: 2, items: [{ id: 'i1', text: 'one' }, { id: 'i2', text: 'ten' }, { id: 'i3', text: 'hundred' }], partialCredit: true },
        { id: 'q_fb', type: 'fill_blanks', prompt: 'Complete the sentence.', points: 2, text: 'Water is {{b1}} and {{b2}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['hydrogen', 'H'] }, { id: 'b2', kind: 'choice', options: [{ id: 'o1', text: 'nitrogen' }, { id: 'o2', text: 'oxygen' }], correctOptionId: 'o2' }] },
        { id: 'q_es', type: 'essay', prompt: 'Explain one cause.', points: 5, rubric: 'One cause named and explained.', maxWords: 300 },
        { id: 'q_fu', type: 'file_upload', prompt: 'Upload your report.', points: 4, accept: ['application/pdf'], maxBytes: 1_000_000 },
      ],
    },
  ],
} as unknown as TestInput;

async function ownTest(user: PortalUser, content: unknown = MIXED): Promise<string> {
  const res = await portalJson(h, user, 'POST', '/portal/authoring/tests', { content });
  expect(res.statusCode).toBe(201);
  return res.json().testId as string;
}
async function publish(user: PortalUser, testId: string): Promise<void> {
  const draft = await portalJson(h, user, 'GET', `/portal/authoring/tests/${testId}/draft`);
  expect((await portalJson(h, user, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: draft.json().revision })).statusCode).toBe(201);
}
const exportUrl = (testId: string, format: 'qti3' | 'csv', from?: 'draft' | 'latest') => `/portal/tests/${testId}/export?format=${format}${from ? `&from=${from}` : ''}`;

/** The form as a browser posts it: multipart/form-data, the CSRF token in the action URL. */
async function postImport(user: PortalUser, fields: Record<string, string>, file?: { name: string; bytes: Buffer }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const req = new Request('http://portal.test/portal/tests/import', { method: 'POST', body: form });
  return h.app.inject({
    method: 'POST',
    url: `/portal/tests/import?csrf=${user.csrf}`,
    headers: { 'content-type': req.headers.get('content-type')!, cookie: user.cookie },
    payload: Buffer.from(await req.arrayBuffer()),
  });
}
const testIdIn = (body: string) => /href="\/portal\/tests\/(tst_[A-Za-z0-9_-]+)\/edit"/.exec(body)?.[1];

type Q = Record<string, any>;
/** A question as what it asks and what it accepts, by texts: option ids and the like may differ between formats. */
function keyOf(q: Q): unknown {
  const text = (list: Array<{ id: string; text: string }>, id: string) => list.find((o) => o.id === id)?.text;
  const base = { type: q.type, prompt: q.prompt, points: q.points };
  switch (q.type) {
    case 'single_choice':
      return { ...base, options: q.options.map((o: Q) => o.text), correct: text(q.options, q.correctOptionId) };
    case 'multiple_choice':
      return { ...base, options: q.options.map((o: Q) => o.text), correct: q.correctOptionIds.map((id: string) => text(q.options, id)), partial: q.partialCredit ?? false };
    case 'short_text':
      return { ...base, answers: q.acceptedAnswers, cs: q.caseSensitive ?? false };
    case 'numeric':
      return { ...base, answer: q.answer, tolerance: q.tolerance ?? 0 };
    case 'matching':
      return { ...base, choices: q.choices.map((c: Q) => c.text), pairs: q.stems.map((s: Q) => [s.text, text(q.choices, q.correct[s.id])]), partial: q.partialCredit ?? true };
    case 'ordering':
      return { ...base, items: q.items.map((i: Q) => i.text), partial: q.partialCredit ?? false };
    case 'fill_blanks':
      return {
        ...base,
        text: q.text.replace(/\{\{[^}]+\}\}/g, '{{}}'),
        blanks: q.blanks.map((b: Q) => (b.kind === 'text' ? { answers: b.acceptedAnswers } : { options: b.options.map((o: Q) => o.text), correct: text(b.options, b.correctOptionId) })),
      };
    case 'essay':
      return { ...base, rubric: q.rubric ?? null };
    case 'file_upload':
      return { ...base, accept: q.accept, maxBytes: q.maxBytes };
    default:
      return base;
  }
}
const keysOf = (content: Q) => (content.sections as Q[]).map((s) => ({ title: s.title, shuffle: s.shuffleQuestions ?? false, questions: (s.questions as Q[]).map(keyOf) }));

describe('GET /portal/tests/:testId/export by role and institution', () => {
  it('signed out: sent to sign in', async () => {
    const res = await portalGet(h, null, exportUrl(await ownTest(users.author), 'qti3'));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/portal\/sign-in\?next=/);
  });

  it.each(['viewer', 'reviewer'] as const)('a %s: 403, nothing audited', async (role) => {
    const testId = await ownTest(users.author);
    expect((await portalGet(h, users[role], exportUrl(testId, 'qti3'))).statusCode).toBe(403);
    expect((await portalGet(h, users[role], exportUrl(testId, 'csv', 'draft'))).statusCode).toBe(403);
    expect((await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'test.exported' && e.object_id === testId)).toEqual([]);
  });

  it.each(['author', 'admin'] as const)("an %s of A: 200 on A's own test; 404 on B's own and on the operators' catalogue", async (role) => {
    const testId = await ownTest(users.author);
    for (const format of ['qti3', 'csv'] as const) expect((await portalGet(h, users[role], exportUrl(testId, format))).statusCode).toBe(200);
    const foreign = await ownTest(authorB);
    expect((await portalGet(h, users[role], exportUrl(foreign, 'qti3'))).statusCode).toBe(404);
    expect((await portalGet(h, users[role], exportUrl(foreign, 'csv', 'draft'))).statusCode).toBe(404);
    expect((await portalGet(h, users[role], exportUrl(h.a.testId, 'qti3'))).statusCode).toBe(404);
    expect((await auditActions(h, h.b.institutionId)).filter((e) => e.action === 'test.exported')).toEqual([]);
  });

  it("an operator: 200 on B's own test", async () => {
    expect((await portalGet(h, users.operator, exportUrl(await ownTest(authorB), 'csv'))).statusCode).toBe(200);
  });

  it('a bad format or source: 400, nothing audited', async () => {
    const testId = await ownTest(users.author);
    expect((await portalGet(h, users.author, `/portal/tests/${testId}/export?format=pdf`)).statusCode).toBe(400);
    expect((await portalGet(h, users.author, `/portal/tests/${testId}/export?format=csv&from=v1`)).statusCode).toBe(400);
    expect((await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'test.exported' && e.object_id === testId)).toEqual([]);
  });
});

describe('what an export writes', () => {
  it("names the file by the test's title (ASCII filename, exact filename*), and audits who exported what", async () => {
    const testId = await ownTest(users.author);
    const zip = await portalGet(h, users.author, exportUrl(testId, 'qti3', 'draft'));
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 2).toString()).toBe('PK');
    expect(zip.headers['content-disposition']).toBe(
      `attachment; filename="Energie & matiere quiz 1 (QTI 3.0).zip"; filename*=UTF-8''%C3%89nergie%20%26%20mati%C3%A8re%3A%20%E2%80%9Cquiz%E2%80%9D%201%20%28QTI%203.0%29.zip`,
    );
    const csv = await portalGet(h, users.author, exportUrl(testId, 'csv'));
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="Energie & matiere quiz 1\.csv"; filename\*=UTF-8''%C3%89nergie/);
    expect(csv.body.split('\n')[0]).toBe(
      'section,type,id,prompt,points,options,correct,accepted_answers,tolerance,case_sensitive,partial_credit,shuffle_options,text,rubric,max_words,accept,max_bytes,draw,shuffle_questions',
    );
    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'test.exported' && e.object_id === testId);
    expect(entries).toEqual([
      { action: 'test.exported', actor_id: users.author.staffId, object_id: testId, details: { format: 'qti3', draftRevision: 1, title: MIXED.title } },
      { action: 'test.exported', actor_id: users.author.staffId, object_id: testId, details: { format: 'csv', draftRevision: 1, title: MIXED.title } },
    ]);
  });

  it('the editor exports the saved draft; the Tests page the latest published version, the draft only before any', async () => {
    const testId = await ownTest(users.author);
    await publish(users.author, testId);
    const draft = (await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    const edited = structuredClone(draft.content);
    edited.sections[0].questions[0].prompt = 'Which planet is the largest, really?';
    expect((await portalJson(h, users.author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: draft.revision, content: edited })).statusCode).toBe(200);
    const fromDraft = (await portalGet(h, users.author, exportUrl(testId, 'csv', 'draft'))).body;
    const latest = (await portalGet(h, users.author, exportUrl(testId, 'csv', 'latest'))).body;
    expect(fromDraft).toContain('Which planet is the largest, really?');
    expect(latest).toContain('Which planet is the largest?');
    expect(latest).not.toContain('really');
    const versions = (await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'test.exported' && e.object_id === testId).map((e) => e.details);
    expect(versions).toEqual([expect.objectContaining({ format: 'csv', draftRevision: 3 }), expect.objectContaining({ format: 'csv', version: 1 })]);
  });

  it('an unfinished draft, or a question CSV cannot hold: 409 page in words, each problem named, no file, nothing audited', async () => {
    const unfinished = await ownTest(users.author, { ...MIXED, sections: [{ title: 'Empty', questions: [{ type: 'single_choice', prompt: '', points: 1, options: [], correctOptionId: 'x' }] }] });
    const res = await portalGet(h, users.author, exportUrl(unfinished, 'qti3', 'draft'));
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body).toContain('This draft cannot be exported yet');
    expect(res.body).toContain('<li><code>sections.0.questions.0');
    expect(res.body).toContain(`href="/portal/tests/${unfinished}/edit"`);

    const slider = { id: 'q_sl', type: 'slider', prompt: 'How warm?', points: 1, min: 0, max: 10, step: 1, correct: 5 };
    const withSlider = await ownTest(users.author, { ...MIXED, sections: [MIXED.sections![0], { title: 'More', questions: [slider] }] });
    const csv = await portalGet(h, users.author, exportUrl(withSlider, 'csv', 'draft'));
    expect(csv.statusCode).toBe(409);
    expect(csv.body).toContain('This test cannot be written as CSV');
    expect(csv.body).toContain('<code>question 5</code>: “How warm?” is a slider question, which CSV cannot hold: export the QTI package instead');
    expect((await portalGet(h, users.author, exportUrl(withSlider, 'qti3', 'draft'))).statusCode).toBe(200);
    const audited = (await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'test.exported' && [unfinished, withSlider].includes(e.object_id!));
    expect(audited.map((e) => e.details.format)).toEqual(['qti3']);
  });
});

describe('round trip through the portal: export, then Import, gives the same test', () => {
  it.each([
    ['qti3', 'exported.zip'],
    ['csv', 'exported.csv'],
  ] as const)('%s: same sections, questions, keys and points', async (format, name) => {
    const testId = await ownTest(users.author);
    await publish(users.author, testId);
    const file = await portalGet(h, users.author, exportUrl(testId, format));
    expect(file.statusCode).toBe(200);
    const imported = await postImport(users.author, { title: 'Round trip' }, { name, bytes: file.rawPayload });
    expect(imported.statusCode).toBe(201);
    const copy = testIdIn(imported.body)!;
    const original = (await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json().content;
    const back = (await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${copy}/draft`)).json().content;
    expect(back.title).toBe('Round trip');
    expect(keysOf(back)).toEqual(keysOf(original));
    expect(keysOf(back).flatMap((s) => s.questions)).toHaveLength(9);
    // The question ids travel too (QTI identifiers, the CSV's id column).
    expect(back.sections.flatMap((s: Q) => s.questions.map((q: Q) => q.id))).toEqual(original.sections.flatMap((s: Q) => s.questions.map((q: Q) => q.id)));
  });
});
