import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createAsset } from '../../src/modules/catalog/content-assets/assets-service.js';
import { ADMIN_TOKEN, AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

const A = '/api/admin/v1';
let h: Harness;
let assetId: string;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  h = await createHarness();
  const res = await h.app.inject({ method: 'POST', url: `${A}/assets`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' }, payload: PNG });
  assetId = res.json().assetId;
});
afterAll(() => h.close());

const markdown = (over: Partial<TestInput>): TestInput => ({ ...AUTO_TEST, contentFormat: 'markdown', ...over });

describe('contentFormat on POST /api/admin/v1/tests', () => {
  it('defaults to plain, is returned by the read, and Markdown-looking text is not checked in a plain test', async () => {
    const plain = await h.admin('POST', `${A}/tests`, { ...AUTO_TEST, questions: [{ type: 'numeric', prompt: 'Costs $\\frac{1$? ![](x.png)', points: 1, answer: 1 }] });
    expect(plain.statusCode).toBe(201);
    expect(plain.json().contentFormat).toBe('plain');
    expect((await h.admin('GET', `${A}/tests/${plain.json().testId}`)).json().contentFormat).toBe('plain');
  });

  it('stores markdown per version, and the version names the assets it uses', async () => {
    const input = markdown({
      questions: [
        { type: 'numeric', prompt: `What is $\\frac{1}{2} + \\frac{1}{4}$? ![A pie cut in quarters](asset:${assetId})`, points: 1, answer: 0.75 },
        { type: 'single_choice', prompt: 'Pick **one**', points: 1, options: [{ id: 'a', text: '$x^2$' }, { id: 'b', text: '[docs](https://example.com)' }], correctOptionId: 'a' },
      ],
    });
    const res = await h.admin('POST', `${A}/tests`, input);
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t.contentFormat).toBe('markdown');
    expect(t.questions[0].prompt).toBe(input.questions![0]!.prompt);
    const { rows } = await h.pool.query(
      `SELECT tva.asset_id FROM test_version_assets tva JOIN test_versions tv ON tv.id = tva.test_version_id WHERE tv.test_id = $1`,
      [t.testId],
    );
    expect(rows).toEqual([{ asset_id: assetId }]);
    const v2 = await h.admin('PUT', `${A}/tests/${t.testId}`, { ...input, contentFormat: 'plain' });
    expect(v2.json()).toMatchObject({ version: 2, contentFormat: 'plain' });
  });

  it('reports every content problem at its field, with line, column and the parser message, and creates nothing', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM test_versions')).rows[0].n;
    const res = await h.admin(
      'POST',
      `${A}/tests`,
      markdown({
        sections: [
          {
            title: 'Part 1',
            instructions: 'Read [this](http://example.com) first',
            questions: [
              { type: 'numeric', prompt: 'Compute\n\n$\\frac{1$', points: 1, answer: 1 },
              {
                type: 'single_choice',
                prompt: 'See ![](asset:' + assetId + ')',
                points: 1,
                options: [{ id: 'a', text: '![Chart](https://example.com/c.png)' }, { id: 'b', text: '[x](javascript:alert(1))' }],
                correctOptionId: 'a',
              },
              {
                type: 'matching',
                prompt: 'Match',
                points: 1,
                stems: [{ id: 's1', text: '$\\nosuch$' }],
                choices: [{ id: 'c1', text: 'A' }, { id: 'c2', text: '![Missing](asset:ast_doesnotexist)' }],
                correct: { s1: 'c1' },
              },
            ],
          },
        ],
        questions: undefined,
      }),
    );
    const e = expectError(res, 400, 'invalid_request');
    expect(e.error.details).toEqual([
      { field: 'sections.0.instructions', message: 'line 1, column 13: link "http://example.com" is not allowed: links must start with https://' },
      {
        field: 'sections.0.questions.0.prompt',
        message: "line 3, column 1: formula $\\frac{1$ cannot be shown: Unexpected end of input in a macro argument, expected '}'",
      },
      { field: 'sections.0.questions.1.prompt', message: 'line 1, column 5: image has no alt text: describe it between the brackets, ![description](asset:ast_…)' },
      {
        field: 'sections.0.questions.1.options.0.text',
        message: 'line 1, column 1: image "https://example.com/c.png" must be an uploaded asset, written ![description](asset:ast_…)',
      },
      { field: 'sections.0.questions.1.options.1.text', message: 'line 1, column 5: link "javascript:alert(1)" is not allowed: links must start with https://' },
      { field: 'sections.0.questions.2.stems.0.text', message: 'line 1, column 1: formula $\\nosuch$ cannot be shown: Unsupported function name: \\nosuch' },
      { field: 'sections.0.questions.2.choices.1.text', message: 'the image names asset "ast_doesnotexist", which does not exist (upload it first)' },
    ]);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM test_versions')).rows[0].n).toBe(before);
  });

  it("refuses an image naming an institution's asset in an operator's test", async () => {
    const own = await createAsset(h.ctx, { contentType: 'image/png', body: PNG, ownerInstitutionId: h.a.institutionId });
    const res = await h.admin('POST', `${A}/tests`, markdown({ questions: [{ type: 'numeric', prompt: `![Graph](asset:${own.assetId})`, points: 1, answer: 1 }] }));
    expect(expectError(res, 400, 'invalid_request').error.details).toEqual([
      { field: 'questions.0.prompt', message: `the image names asset "${own.assetId}", which does not exist (upload it first)` },
    ]);
  });

  it('checks rubrics and fill-in-the-blank texts too, and refuses an unknown contentFormat', async () => {
    const res = await h.admin(
      'POST',
      `${A}/tests`,
      markdown({
        marking: 'manual',
        resultVisibility: 'after_review',
        questions: [
          { type: 'essay', prompt: 'Discuss', points: 2, rubric: 'Full marks for $\\sqrt{$' },
          { type: 'fill_blanks', prompt: 'Fill', points: 1, text: 'Area is {{b1}} when $r = ', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['x'] }] },
        ],
      }),
    );
    const fields = expectError(res, 400, 'invalid_request').error.details!.map((d) => d.field);
    expect(fields).toEqual(['questions.0.rubric']);
    expectError(await h.admin('POST', `${A}/tests`, { ...AUTO_TEST, contentFormat: 'html' }), 400, 'invalid_request');
  });
});
