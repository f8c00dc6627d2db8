import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { partnerReadsDuring } from '../helpers/read-during.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * The formula expansion bomb of the outside review: a few
 * hundred characters of `\def` that Temml expanded to megabytes of MathML,
 * holding the event loop for seconds at every check and every rendering.
 * Authoring refuses it fast, naming the field; a version stored before the
 * bounds renders it as its source.
 */
const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  // The first request of a process compiles schemas and routes, and the first test with many new texts starts the
  // worker-pool thread that checks them (content/text-checks-off-loop.ts): not what the timings below are about.
  expect((await h.admin('POST', `${A}/tests`, markdownTest('Warm: $x$'))).statusCode).toBe(201);
  expect((await h.admin('POST', `${A}/tests`, markdownTest(`Warm: $y$ ${'and more words '.repeat(300)}`))).statusCode).toBe(201);
});
afterAll(() => h.close());

const a105 = 'a'.repeat(105);
/** 250 characters that expand to 84,000 letters. */
const BOMB = `$\\def\\a{${a105}}\\def\\b{${'\\a'.repeat(40)}}${'\\b'.repeat(20)}$`;
/** Eight of them: about two seconds of the old check on this machine. */
const BOMBS = Array.from({ length: 8 }, () => BOMB).join('\n\n');
/** The review's 10,000-character prompt: bombs to the schema's limit. */
const LONG_PROMPT = Array.from({ length: 41 }, () => BOMB).join(' ').slice(0, 10_000);

const markdownTest = (prompt: string): TestInput => ({
  ...AUTO_TEST,
  contentFormat: 'markdown',
  questions: [AUTO_TEST.questions![0]!, { type: 'numeric', prompt, points: 1, answer: 1 }],
});

async function timed<T>(run: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const t0 = performance.now();
  const res = await run();
  return { res, ms: performance.now() - t0 };
}

describe('authoring refuses the expansion bomb, fast, at its field', () => {
  it('POST /tests: 400 naming questions.1.prompt and the macro, in under 200 ms, nothing created', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n;
    const { res, ms } = await timed(() => h.admin('POST', `${A}/tests`, markdownTest(BOMBS)));
    const body = expectError(res, 400, 'invalid_request');
    expect(body.error.details![0]).toMatchObject({ field: 'questions.1.prompt' });
    expect(body.error.details![0]!.message).toContain('\\def defines a macro, and formulas may not define macros');
    expect(ms).toBeLessThan(200);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n).toBe(before);
  });

  it('POST /tests/drafts with the 10,000-character prompt: 400 at questions.1.prompt in under 200 ms, no draft stored', async () => {
    expect(LONG_PROMPT.length).toBe(10_000);
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n;
    const { res, ms } = await timed(() => h.admin('POST', `${A}/tests/drafts`, { content: markdownTest(LONG_PROMPT) }));
    const body = expectError(res, 400, 'invalid_request');
    expect(new Set(body.error.details!.map((d) => d.field))).toEqual(new Set(['questions.1.prompt']));
    expect(ms).toBeLessThan(200);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n).toBe(before);
  });

  it('PUT /tests/{id}/draft: the bomb is refused and the saved draft stays as it was', async () => {
    const created = await h.admin('POST', `${A}/tests/drafts`, { content: markdownTest('What is $x$?') });
    expect(created.statusCode).toBe(201);
    const { testId, revision } = created.json();
    const { res, ms } = await timed(() => h.admin('PUT', `${A}/tests/${testId}/draft`, { revision, content: markdownTest(BOMBS) }));
    expect(expectError(res, 400, 'invalid_request').error.details![0]!.field).toBe('questions.1.prompt');
    expect(ms).toBeLessThan(200);
    const draft = (await h.admin('GET', `${A}/tests/${testId}/draft`)).json();
    expect(draft).toMatchObject({ revision, content: { questions: [{}, { prompt: 'What is $x$?' }] } });
  });

  it('a partner read answers within 1 s while a draft with the bomb is being created', async () => {
    const during = await partnerReadsDuring(h, (baseUrl) =>
      fetch(`${baseUrl}${A}/tests/drafts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${process.env.ASSAY_ADMIN_TOKEN ?? 'test-admin-token-0123456789abcdef'}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: markdownTest(BOMBS) }),
      }).then(async (r) => ({ status: r.status, body: await r.text() })),
    );
    expect(during.result.status).toBe(400);
    expect(during.reads).toBeGreaterThan(0);
    expect(during.maxReadMs).toBeLessThan(1000);
    expect(during.maxLoopDelayMs).toBeLessThan(200);
  });
});

describe('a version stored before the bounds', () => {
  it('shows the bomb on the student page as its source in a code element, without expanding it', async () => {
    // A first student page compiles what every later one reuses.
    const warm = await assign(h, h.a, { testId: await createPublishedTest(h, h.a, markdownTest('Warm: $y$')), externalUserId: 'warm-1' });
    const first = new Student(h);
    await first.start(warm.startUrl);
    expect((await first.page(warm.assignmentId)).statusCode).toBe(200);
    const testId = await createPublishedTest(h, h.a, markdownTest('Fine: $x^2$'));
    // As an older version holds it: straight in the database, past the checks.
    const stored = await h.pool.query(
      `UPDATE test_versions SET questions = jsonb_set(questions, '{1,prompt}', to_jsonb($2::text)) WHERE test_id = $1`,
      [testId, BOMBS],
    );
    expect(stored.rowCount).toBe(1);
    const a = await assign(h, h.a, { testId, externalUserId: 'bomb-1' });
    const student = new Student(h);
    await student.start(a.startUrl);
    const { res, ms } = await timed(() => student.page(a.assignmentId));
    expect(res.statusCode).toBe(200);
    expect(ms).toBeLessThan(500);
    expect(res.body.length).toBeLessThan(100_000);
    expect(res.body).toContain('<code class="math-error" title="This formula could not be shown">$\\def\\a{aaa');
  });
});
