import type { TestInput } from '../../src/modules/catalog/schemas.js';

/**
 * A test whose every text is as long as an author may make it wide: whole
 * sentences as options (a select is as wide as its widest option unless the
 * page says otherwise), words and addresses with no place to break, and in
 * Markdown a code block, a table and a formula wider than a phone. Every
 * question type is here, a composite's parts, a passage and sections, so the
 * narrow-screen test (narrow-screens.test.ts) can look for anything that
 * pushes the page sideways.
 */
export const SENTENCE =
  'An option written as a whole sentence, as real matching questions in pharmacology and law have them, far wider than any phone held upright';
export const WORD = 'Pneumonoultramicroscopicsilicovolcanoconiosis-Hippopotomonstrosesquippedaliophobia';
export const URL_TEXT = 'https://example.org/library/course-materials/2026/week-twelve/an-address-with-no-spaces-in-it-anywhere?section=appendix-b';
const CODE = '```js\nconst aLineOfCodeThatIsMuchWiderThanAPhone = computeTheAnswer(firstArgument, secondArgument, thirdArgument);\n```';
const TABLE = '| Substance | Melting point (°C) | Boiling point (°C) | Density (g/cm³) | Notes |\n|---|---|---|---|---|\n| Water | 0 | 100 | 1.00 | the reference for the others |\n| Ethanol | −114 | 78 | 0.79 | mixes with water in any ratio |';
const FORMULA = '$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a} + \\sum_{i=1}^{n} \\frac{a_i b_i c_i d_i}{e_i f_i g_i h_i} + \\int_0^\\infty e^{-t^2} \\, dt + \\prod_{k=1}^{m} (1 + r_k)$$';
const INLINE_FORMULA = '$a_1 b_1 c_1 d_1 e_1 f_1 + a_2 b_2 c_2 d_2 e_2 f_2 + a_3 b_3 c_3 d_3 e_3 f_3 + a_4 b_4 c_4 d_4 e_4 f_4 = \\sum_{i=1}^{4} a_i b_i c_i d_i e_i f_i$';
/** A prompt with every wide thing Markdown can hold. */
const RICH = `Read this before you answer: ${WORD} at <${URL_TEXT}>, with \`${WORD}\` in code.\n\n${CODE}\n\n${TABLE}\n\n${FORMULA}`;
const long = (label: string) => `${label}: ${SENTENCE} ${WORD}`;
const opts = (prefix: string) => [
  { id: `${prefix}1`, text: long('First') },
  { id: `${prefix}2`, text: WORD },
  { id: `${prefix}3`, text: `<${URL_TEXT}>` },
];

/** A drawing far wider than a phone, for the image types. */
export const WIDE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="400" viewBox="0 0 1600 400">
<rect width="1600" height="400" fill="#eef3fb"/>
<rect x="40" y="40" width="400" height="300" fill="#c9d3de" stroke="#394b5e" stroke-width="4"/>
<circle cx="800" cy="200" r="150" fill="#a9cfee" stroke="#2d5f8a" stroke-width="4"/>
<polygon points="1200,40 1560,360 1100,360" fill="#9cc28a" stroke="#3f6b2e" stroke-width="4"/>
</svg>`;

const regions = [
  { id: 'box', label: long('Box').slice(0, 200), shape: 'rect', coords: [40, 40, 440, 340] },
  { id: 'disc', label: WORD, shape: 'circle', coords: [800, 200, 150] },
  { id: 'peak', label: 'Triangle', shape: 'poly', coords: [1200, 40, 1560, 360, 1100, 360] },
];

/** The test in Markdown (code, tables and formulas rendered) or as plain text (the same characters shown as written). */
export function longTextsTest(imageAssetId: string, contentFormat: 'markdown' | 'plain' = 'markdown'): TestInput {
  const image = `asset:${imageAssetId}`;
  const imageAlt = `A drawing of a box, a disc and a triangle, ${SENTENCE}`;
  return {
    title: `Long Texts: ${WORD}`,
    description: `Every kind of question with texts wider than a phone. ${URL_TEXT}`,
    durationMinutes: 600,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    contentFormat,
    passages: [{ id: 'wide', title: `The passage ${WORD}`, text: `${SENTENCE}. ${WORD}.\n\n${TABLE}\n\n${CODE}` }],
    sections: [
      {
        id: 'choosing',
        title: `Choosing: ${WORD}`,
        instructions: `Answer every question. ${WORD} ${URL_TEXT}`,
        questions: [
          { id: 'sc', type: 'single_choice', prompt: RICH, points: 1, options: opts('s'), correctOptionId: 's1', passageId: 'wide' },
          { id: 'mc', type: 'multiple_choice', prompt: long('Choose'), points: 2, options: opts('m'), correctOptionIds: ['m1', 'm2'], passageId: 'wide' },
          {
            id: 'ma',
            type: 'matching',
            prompt: long('Match'),
            points: 2,
            stems: [{ id: 'x', text: long('Stem') }, { id: 'y', text: WORD }],
            choices: [{ id: 'c1', text: long('Choice') }, { id: 'c2', text: WORD }, { id: 'c3', text: 'Short' }],
            correct: { x: 'c1', y: 'c2' },
          },
          { id: 'or', type: 'ordering', prompt: long('Order'), points: 1, items: [{ id: 'o1', text: long('Item') }, { id: 'o2', text: WORD }, { id: 'o3', text: URL_TEXT }] },
          {
            id: 'fb',
            type: 'fill_blanks',
            prompt: long('Fill'),
            points: 2,
            text: `${SENTENCE} {{t}} and ${WORD} {{c}} ${URL_TEXT}.`,
            blanks: [
              { id: 't', kind: 'text', acceptedAnswers: ['water'] },
              { id: 'c', kind: 'choice', options: [{ id: 'f1', text: long('Blank') }, { id: 'f2', text: WORD }], correctOptionId: 'f1' },
            ],
          },
          { id: 'st', type: 'short_text', prompt: `${WORD} ${URL_TEXT} ${INLINE_FORMULA}`, points: 1, acceptedAnswers: ['hot'] },
          { id: 'nu', type: 'numeric', prompt: FORMULA, points: 1, answer: 3.14, tolerance: 0.01 },
        ],
      },
      {
        id: 'pictures',
        title: `Pictures and words ${WORD}`,
        questions: [
          { id: 'hs', type: 'hotspot', prompt: long('Hotspot'), points: 1, image, imageAlt, imageWidth: 1600, imageHeight: 400, regions, correctRegionIds: ['disc'], maxChoices: 2 },
          {
            id: 'sp',
            type: 'select_point',
            prompt: long('Point'),
            points: 1,
            image,
            imageAlt,
            maxPoints: 2,
            areas: regions.map((r) => ({ ...r, points: 1 })),
          },
          { id: 'go', type: 'graphic_order', prompt: long('Route'), points: 1, image, imageAlt, imageWidth: 1600, imageHeight: 400, regions },
          {
            id: 'ht',
            type: 'hot_text',
            prompt: long('Words'),
            points: 1,
            text: `${SENTENCE} {{h1}} then {{h2}} and ${URL_TEXT} {{h3}}.`,
            hotspots: [{ id: 'h1', phrase: WORD }, { id: 'h2', phrase: SENTENCE }, { id: 'h3', phrase: 'short' }],
            correct: ['h1'],
            maxChoices: 2,
          },
          { id: 'sl', type: 'slider', prompt: long('Slide'), points: 1, min: -1_000_000_000, max: 1_000_000_000, step: 20_000, correct: 0, tolerance: 20_000 },
          {
            id: 'as',
            type: 'associate',
            prompt: long('Pair'),
            points: 1,
            items: [{ id: 'a1', text: long('Left') }, { id: 'a2', text: WORD }, { id: 'a3', text: URL_TEXT }, { id: 'a4', text: 'Short' }],
            pairs: [{ a: 'a1', b: 'a2' }],
            maxAssociations: 2,
          },
          {
            id: 'cp',
            type: 'composite',
            prompt: long('Parts'),
            parts: [
              { id: 'p1', type: 'single_choice', prompt: long('Part one'), points: 1, options: opts('ps'), correctOptionId: 'ps1' },
              {
                id: 'p2',
                type: 'matching',
                prompt: RICH,
                points: 1,
                stems: [{ id: 'px', text: WORD }],
                choices: [{ id: 'pc1', text: long('Part choice') }, { id: 'pc2', text: 'Short' }],
                correct: { px: 'pc1' },
              },
              { id: 'p3', type: 'ordering', prompt: WORD, points: 1, items: [{ id: 'po1', text: long('Part item') }, { id: 'po2', text: WORD }] },
            ],
          },
          { id: 'es', type: 'essay', prompt: RICH, points: 5, maxWords: 100 },
          { id: 'fu', type: 'file_upload', prompt: `${WORD} ${URL_TEXT}`, points: 5, accept: ['application/pdf'], maxBytes: 1024 * 1024 },
        ],
      },
    ],
  } as unknown as TestInput;
}
