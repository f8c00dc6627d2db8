import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../../src/platform/errors.js';
import { validatorCompiler } from '../../src/platform/http/validation.js';
import { defineWorkerTask } from '../../src/platform/worker-pool/worker-pool.js';
import { workerPool } from '../../src/platform/worker-pool/shared-pool.js';
import { TestInput } from '../../src/modules/catalog/schemas.js';
import { draftProblems } from '../../src/modules/catalog/drafts.js';
import { checkTestContent, markdownTexts } from '../../src/modules/catalog/content/content-checks.js';
import { checkTranslations } from '../../src/modules/catalog/translations/translation-checks.js';
import { freshTextChecks, textChecks } from '../../src/modules/catalog/content/text-checks.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { PNG } from '../helpers/markdown-content.js';
import { benchTestContent } from '../../bench/editor-content.js';
import { ASSETS_AT_START, randomDraft, randomEdit, startWalk, type Draft } from '../helpers/random-test-edits.js';

/**
 * The editor's save checks only the texts it changed (docs/authoring.md "How
 * a save is checked"): through the portal's save route, over random edits of
 * a draft (texts, questions, sections, passages, pools, marking, content
 * format, translations) and images uploaded while the texts naming them stay
 * as they were, every save answers exactly the problems that a full check of
 * the stored draft (nothing kept) finds, and so does opening the draft and
 * publishing it. Texts the process has not seen go to the worker pool; one
 * thread and no queue here, so a pool held busy refuses such a save (503,
 * nothing written) while a one-prompt save goes through.
 */
const P = '/portal/authoring/tests';
let h: Harness;
let author: PortalUser;

/** Holds a pool thread for `ms` (test/fixtures/worker-pool/tasks.ts). */
const spin = defineWorkerTask<{ ms: number }, string>(new URL('../fixtures/worker-pool/tasks.js', import.meta.url), 'spin');

beforeAll(async () => {
  h = await createHarness({ config: { workerPool: { threads: 1, queueLimit: 0, taskTimeoutMs: 30_000, memoryMb: 256 } } });
  author = await signedIn(h, 'author', h.a.institutionId);
  // The assets the walk's texts name from the start exist, the institution's own.
  for (const id of ASSETS_AT_START) await uploadAs(id);
});
afterAll(() => h.close());

/** A real upload through the editor's route, its id then set to the one the walk's texts name (once: a later walk finds it there). */
async function uploadAs(id: string): Promise<void> {
  if ((await h.pool.query('SELECT 1 FROM assets WHERE id = $1', [id])).rowCount) return;
  const res = await h.app.inject({ method: 'POST', url: '/portal/authoring/assets', headers: { cookie: author.cookie, 'x-csrf-token': author.csrf, 'content-type': 'image/png' }, payload: PNG });
  expect(res.statusCode).toBe(201);
  await h.pool.query('UPDATE assets SET id = $2 WHERE id = $1', [res.json().assetId, id]);
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validate = validatorCompiler({ schema: TestInput, method: 'PUT', url: '/draft', httpPart: 'body' } as never) as unknown as Validate;

/** What a full check of the stored draft finds: nothing kept, every text checked afresh. */
const fullCheck = async (content: unknown) => (await draftProblems(h.pool, content, h.a.institutionId, freshTextChecks)).problems;

/** The bounds on formulas that `content`, as PostgreSQL stores it, breaks (a fresh check); none when the schema refuses it. */
async function overBounds(content: unknown): Promise<ErrorDetail[]> {
  const stored: unknown = (await h.pool.query('SELECT $1::jsonb AS c', [JSON.stringify(content)])).rows[0].c;
  if (!validate(stored)) return [];
  const over: ErrorDetail[] = [];
  checkTestContent(stored as TestInput, over, undefined, 'bounds', freshTextChecks);
  checkTranslations(stored as TestInput, over, undefined, 'bounds', freshTextChecks);
  return over;
}

describe("the editor's save", () => {
  it('answers exactly the problems of a full check of the stored draft, over random edits, uploads, opens and publishes', { timeout: 180_000 }, async () => {
    const tally = { saved: 0, refused: 0, broken: 0, withProblems: 0, uploads: 0, opens: 0, published: 0 };
    for (const seed of [11, 12, 13]) {
      const w = startWalk(seed);
      // A draft to start from that is within the bounds on formulas (a new draft over them is refused too).
      let d: Draft = randomDraft(w, 16);
      let created = await portalJson(h, author, 'POST', P, { content: d });
      for (let tries = 0; created.statusCode === 400 && tries < 20; tries++) created = await portalJson(h, author, 'POST', P, { content: (d = randomDraft(w, 16)) });
      expect(created.statusCode).toBe(201);
      const testId = created.json().testId as string;
      let revision = created.json().revision as number;
      expect(created.json().problems).toEqual(await fullCheck(created.json().content));
      for (let step = 0; step < 30; step++) {
        const before = structuredClone(d);
        // Midway, a passage names an image not uploaded yet; the next step uploads it.
        const named = `ast_named${seed}`;
        const what = step === 15 ? `named ${named}` : step === 16 ? `uploaded ${named}` : randomEdit(d, w);
        if (step === 15) d.passages = [...(d.passages ?? []), { id: `later${seed}`, text: `![Uploaded later](asset:${named})` }];
        const where = `seed ${seed}, step ${step} (${what})`;
        if (what.startsWith('uploaded')) {
          await uploadAs(what.slice('uploaded '.length));
          tally.uploads++;
          // Nothing in the draft changed, yet what it names now exists: opening it says so.
          const open = await portalJson(h, author, 'GET', `${P}/${testId}/draft`);
          expect(open.json().problems, where).toEqual(await fullCheck(open.json().content));
          tally.opens++;
          continue;
        }
        // Now and then the editor sends something the schema refuses (a title that is not text): saved all the same.
        const sent = structuredClone(d) as Record<string, unknown>;
        const broken = w.r() < 0.1;
        if (broken) (sent as { title: unknown }).title = 42;
        const res = await portalJson(h, author, 'PUT', `${P}/${testId}/draft`, { revision, content: sent, editorId: 'walk-tab-1' });
        if (res.statusCode === 400) {
          // Over a bound on formulas: refused at its fields, nothing written; the walk goes back to the saved draft.
          expect(res.json().error.details, where).toEqual(await overBounds(sent));
          expect((await portalJson(h, author, 'GET', `${P}/${testId}/draft`)).json().revision, where).toBe(revision);
          d = before;
          tally.refused++;
          continue;
        }
        expect(res.statusCode, `${where}: ${res.body.slice(0, 300)}`).toBe(200);
        const saved = res.json();
        expect(saved.problems, where).toEqual(await fullCheck(saved.content));
        revision = saved.revision;
        tally.saved++;
        if (broken) tally.broken++;
        if (saved.problems.length > 0) tally.withProblems++;
        if (step % 10 === 9) {
          const published = await portalJson(h, author, 'POST', `${P}/${testId}/versions`, { revision });
          if (published.statusCode === 201) {
            tally.published++;
            const after = (await portalJson(h, author, 'GET', `${P}/${testId}/draft`)).json();
            d = after.content;
            revision = after.revision;
            expect(after.problems, where).toEqual(await fullCheck(after.content));
          } else {
            expect(published.statusCode, where).toBe(400);
            expect(published.json().error.details, where).toEqual((await fullCheck(saved.content)).map(({ field, message }) => ({ field, message })));
          }
        }
      }
      // Each walk ends clean: a finished test saved over it (most of its texts seen before) is published.
      const clean = benchTestContent(12, ` (walk ${seed})`);
      const finished = await portalJson(h, author, 'PUT', `${P}/${testId}/draft`, { revision, content: clean });
      expect(finished.json().problems).toEqual([]);
      expect(await fullCheck(finished.json().content)).toEqual([]);
      const published = await portalJson(h, author, 'POST', `${P}/${testId}/versions`, { revision: finished.json().revision });
      expect(published.statusCode).toBe(201);
      tally.published++;
    }
    // The walks saved, were refused, sent what the schema refuses, had problems, uploaded and published.
    expect(tally.saved).toBeGreaterThan(40);
    expect(tally.withProblems).toBeGreaterThan(20);
    expect(tally.broken).toBeGreaterThan(0);
    expect(tally.uploads).toBeGreaterThan(0);
    expect(tally.published).toBe(3);
  });

  it("answers the problems of the draft as stored, in PostgreSQL's order of its keys, as opening it does", async () => {
    const content = {
      ...benchTestContent(4, ' (order)'),
      // Written in this order; stored (jsonb) with the shorter key first.
      translations: { 'pt-br': { title: 'Quatro perguntas' }, fr: { questions: { nope: { prompt: 'Pas de question' } } } },
    };
    const created = await portalJson(h, author, 'POST', P, { content: { title: 'First' } });
    const saved = await portalJson(h, author, 'PUT', `${P}/${created.json().testId}/draft`, { revision: created.json().revision, content });
    expect(saved.statusCode).toBe(200);
    const fields = saved.json().problems.map((p: { field: string }) => p.field);
    expect(fields).toEqual(['translations.fr.questions.nope.prompt', 'translations.pt-br']);
    expect(saved.json().problems).toEqual(await fullCheck(saved.json().content));
    expect((await portalJson(h, author, 'GET', `${P}/${created.json().testId}/draft`)).json().problems).toEqual(saved.json().problems);
  });

  it('keeps working while the worker pool is busy when few texts changed; many new texts wait for it (503, nothing written)', async () => {
    const many = (tag: string) => ({
      title: 'Many new texts',
      description: 'Forty essays',
      durationMinutes: 30,
      proctoring: 'none',
      marking: 'hybrid',
      resultVisibility: 'after_review',
      passPercent: null,
      contentFormat: 'markdown',
      questions: Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, type: 'essay', prompt: `Question ${i} (${tag}): explain $x_${i} = ${i}^2$ in a few sentences.`, points: 1 })),
    });
    const created = await portalJson(h, author, 'POST', P, { content: many('first') });
    expect(created.statusCode).toBe(201);
    expect(created.json().problems).toEqual([]);
    const { testId } = created.json();
    let revision = created.json().revision as number;
    // Those texts were checked (on the pool: more than the loop checks itself) and are kept.
    expect(textChecks.missing(markdownTexts(created.json().content))).toEqual([]);

    const holder = workerPool().run(spin, new Uint8Array(0), { ms: 3_000 });
    await new Promise((r) => setTimeout(r, 200));
    const edited = many('first');
    edited.questions[3]!.prompt = 'Question 3, edited: explain $y = 3$.';
    const small = await portalJson(h, author, 'PUT', `${P}/${testId}/draft`, { revision, content: edited });
    expect(small.statusCode).toBe(200);
    revision = small.json().revision;

    const refused = await portalJson(h, author, 'PUT', `${P}/${testId}/draft`, { revision, content: many('second') });
    const body = expectError(refused, 503, 'unavailable');
    expect(refused.headers['retry-after']).toBe('5');
    expect(body.error.message).toMatch(/busy checking other tests/);
    const unchanged = (await portalJson(h, author, 'GET', `${P}/${testId}/draft`)).json();
    expect(unchanged.revision).toBe(revision);
    expect(unchanged.content.questions[3].prompt).toBe('Question 3, edited: explain $y = 3$.');
    const admin = await h.app.inject({ method: 'POST', url: '/api/admin/v1/tests', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(many('third')) });
    expectError(admin, 503, 'unavailable');

    expect(await holder).toBe('done');
    const again = await portalJson(h, author, 'PUT', `${P}/${testId}/draft`, { revision, content: many('second') });
    expect(again.statusCode).toBe(200);
    expect(again.json().problems).toEqual(await fullCheck(again.json().content));
  });
});
