import { expect } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, type Harness } from './harness.js';

/** A real 1×1 PNG (the image's bytes do not matter to the pages, only its alt text and URL). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export const TRIANGLE_ALT = 'A right triangle with legs 3 and 4 and hypotenuse c';

/** What the older version holds that no save would accept now: a formula Temml cannot read, and a javascript: link. */
export const BROKEN_PROMPT = 'Explain why $\\frac{1$ is not a formula. [Read more](javascript:alert(1))';

export async function uploadPng(h: Harness): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/v1/assets', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' }, payload: PNG });
  expect(res.statusCode).toBe(201);
  return res.json().assetId as string;
}

/**
 * A Markdown test with one question of the types whose texts render (a
 * choice, matching, ordering, fill-in-the-blanks, an essay with a rubric) in
 * a section with instructions: inline and display math, an image asset, a
 * table, code and raw HTML.
 */
export function markdownTest(assetId: string): TestInput {
  return {
    title: 'Right Triangles',
    description: 'Pythagoras, with formulas.',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: null,
    contentFormat: 'markdown',
    sections: [
      {
        id: 'geo',
        title: 'Geometry',
        instructions: 'Give **exact** values.',
        questions: [
          {
            id: 'tri',
            type: 'single_choice',
            prompt: [
              'The triangle below has legs $a = 3$ and $b = 4$.',
              '',
              `![${TRIANGLE_ALT}](asset:${assetId})`,
              '',
              '$$c = \\sqrt{a^2 + b^2}$$',
              '',
              '| leg | length |',
              '|---|---|',
              '| a | 3 |',
              '| b | 4 |',
              '',
              'In code: `Math.hypot(3, 4)`. <b>not bold</b>',
              '',
              'What is $c$?',
            ].join('\n'),
            points: 1,
            options: [
              { id: 'five', text: '$5$' },
              { id: 'seven', text: '$\\sqrt{7}$' },
            ],
            correctOptionId: 'five',
          },
          {
            id: 'match',
            type: 'matching',
            prompt: 'Match each power to its name.',
            points: 2,
            stems: [
              { id: 'sq', text: '$x^2$' },
              { id: 'cu', text: '**cube**' },
            ],
            choices: [
              { id: 'two', text: 'power $2$' },
              { id: 'three', text: 'power 3' },
            ],
            correct: { sq: 'two', cu: 'three' },
          },
          {
            id: 'order',
            type: 'ordering',
            prompt: 'Smallest first.',
            points: 1,
            items: [
              { id: 'half', text: '$\\frac{1}{2}$' },
              { id: 'one', text: '$1$' },
              { id: 'two', text: '$2$' },
            ],
          },
          {
            id: 'blanks',
            type: 'fill_blanks',
            prompt: 'Complete the sentence.',
            points: 2,
            text: 'The hypotenuse is *{{len}}* units long and the area is {{area}}.',
            blanks: [
              { id: 'len', kind: 'text', acceptedAnswers: ['5'] },
              { id: 'area', kind: 'choice', options: [{ id: 'six', text: '$6$' }, { id: 'twelve', text: '$12$' }], correctOptionId: 'six' },
            ],
          },
          { id: 'es', type: 'essay', prompt: 'Explain $a^2 + b^2 = c^2$ in words.', points: 4, rubric: 'Mentions the **right angle**.' },
        ],
      },
    ],
  } as TestInput;
}

/**
 * Gives the stored version of `testId` a prompt that saving would refuse
 * today, straight in the database, as a version stored before the checks
 * existed would hold it. Call it before any page loads the version (the
 * process caches versions).
 */
export async function storeBrokenPrompt(h: Harness, testId: string, questionId: string): Promise<void> {
  const res = await h.pool.query(
    `UPDATE test_versions SET questions = (
       SELECT jsonb_agg(CASE WHEN q->>'id' = $2 THEN jsonb_set(q, '{prompt}', to_jsonb($3::text)) ELSE q END ORDER BY n)
       FROM jsonb_array_elements(questions) WITH ORDINALITY AS x(q, n))
     WHERE test_id = $1`,
    [testId, questionId, BROKEN_PROMPT],
  );
  expect(res.rowCount).toBe(1);
}

/** A drawn right triangle (legs 3 and 4), for pages whose screenshots should show the image. */
export const TRIANGLE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="150" viewBox="0 0 200 150">
<polygon points="20,130 180,130 20,10" fill="#e6edfc" stroke="#1d4ed8" stroke-width="3"/>
<text x="100" y="148" font-size="14" text-anchor="middle">4</text><text x="6" y="75" font-size="14">3</text><text x="108" y="64" font-size="14">c</text>
</svg>`;

export async function uploadSvg(h: Harness): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/v1/assets', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/svg+xml' }, payload: TRIANGLE_SVG });
  expect(res.statusCode).toBe(201);
  return res.json().assetId as string;
}
