import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validationProblems, validatorCompiler, type ValidationProblem } from '../../../platform/http/validation.js';
import { englishTranslator } from '../../../platform/i18n/catalogue.js';
import { TestInput } from '../../catalog/schemas.js';
import { PROBLEM_MESSAGES, problemText, ruleAdvice } from './problem-words.js';

type Place = { label: string | null; where: string | null };
type Words = (p: ValidationProblem, place: Place, tr: (key: string, values?: Record<string, unknown>) => string) => string;

// The browser script's own function (editor-problems.js), run here with the server's English catalogue.
const source = readFileSync(new URL('../ui/assets/editor-problems.js', import.meta.url), 'utf8');
const fakeWindow: { AssayEditorProblems?: { words: Words } } = {};
new Function('window', source)(fakeWindow);
const en = englishTranslator();
const used = new Set<string>();
const tr = (key: string, values?: Record<string, unknown>) => {
  used.add(key);
  return en.t(key as never, values as never);
};
const words = (p: ValidationProblem, label: string | null = null, where: string | null = null) => fakeWindow.AssayEditorProblems!.words(p, { label, where }, tr);

type Validate = ((data: unknown) => boolean) & { errors?: never };
const validate = validatorCompiler({ schema: TestInput, method: 'PUT', url: '/draft', httpPart: 'body' } as never) as unknown as Validate;

/** The problems the draft schema finds in `content`, by field. */
function problemsOf(content: unknown): Map<string, ValidationProblem> {
  expect(validate(structuredClone(content))).toBe(false);
  return new Map(validationProblems(validate.errors ?? [], 'body').map((p) => [p.field, p]));
}

const question = (extra: Record<string, unknown>) => ({ prompt: 'What?', points: 1, ...extra });
const broken = problemsOf({
  title: '',
  description: 'x'.repeat(20_000),
  durationMinutes: 0,
  proctoring: 'sometimes',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 'half',
  colour: 'red',
  sections: [
    { title: '', questions: [] },
    {
      title: 'Reading',
      questions: [
        question({ type: 'single_choice', id: 'not an id', points: 'two', options: [{ id: 'a', text: '' }] }),
        question({ type: 'numeric', points: 0, correctAnswer: 1 }),
        question({ type: 'file_upload', accept: [], maxBytes: 50 * 1024 * 1024 }),
        question({ type: 'fill_blanks', text: 'The {{b1}}.', blanks: [] }),
        question({ type: 'essay_of_sorts' }),
        question({ type: 'short_text' }),
      ],
    },
  ],
});

describe('the editor words every rule the draft schema can break (editor-problems.js)', () => {
  it('the two field reports: a section without questions and one without a title', () => {
    const questions = broken.get('sections.0.questions')!;
    expect(questions.rule).toEqual({ keyword: 'minItems', limit: 1 });
    expect(words(questions)).toBe('Add at least one question to section 1');
    expect(words(broken.get('sections.0.title')!, 'Section 1 title')).toBe('Enter a title for section 1');
    expect(words(broken.get('title')!, 'Title')).toBe('Enter a title for the test');
  });

  it('minItems and required on a list: what to add', () => {
    expect(words(broken.get('sections.1.questions.0.options')!, null, 'Question 1')).toBe('Question 1: Add at least 2 options');
    expect(words(broken.get('sections.1.questions.2.accept')!, null, 'Question 3')).toBe('Question 3: Choose at least one file type');
    expect(words(broken.get('sections.1.questions.3.blanks')!, null, 'Question 4')).toBe('Question 4: Add at least one blank');
    const missing = broken.get('sections.1.questions.5.acceptedAnswers')!;
    expect(missing.rule?.keyword).toBe('required');
    expect(words(missing, null, 'Question 6')).toBe('Question 6: Add at least one accepted answer');
    expect(words({ field: 'questions.0.stems', message: '', rule: { keyword: 'minItems', limit: 3 } })).toBe('Add at least 3 entries here');
  });

  it('a blank of one kind is held to its own kind only, and its list named by its label', () => {
    const blank = problemsOf({ title: 'T', questions: [question({ type: 'fill_blanks', text: 'The {{b1}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: [] }] })] });
    expect([...blank.keys()].filter((field) => field.includes('blanks'))).toEqual(['questions.0.blanks.0.acceptedAnswers']);
    expect(words(blank.get('questions.0.blanks.0.acceptedAnswers')!, 'Accepted answers for blank 1', 'Question 1')).toBe(
      'Question 1, Accepted answers for blank 1: Add at least one accepted answer',
    );
  });

  it('maxItems: how many are allowed', () => {
    const options = Array.from({ length: 60 }, (_, k) => ({ id: `o${k}`, text: `Option ${k}` }));
    const tooMany = problemsOf({ title: 'T', questions: [question({ type: 'single_choice', options, correctOptionId: 'o1' })] }).get('questions.0.options')!;
    expect(tooMany.rule).toEqual({ keyword: 'maxItems', limit: 50 });
    expect(words(tooMany, null, 'Question 1')).toBe('Question 1: Too many here: at most 50 are allowed, so remove the rest');
  });

  it('minLength and maxLength on a text, with its label', () => {
    expect(words(broken.get('sections.1.questions.0.options.0.text')!, 'Option 1', 'Question 1')).toBe('Question 1, Option 1: enter some text');
    expect(words({ field: 'x', message: '', rule: { keyword: 'minLength', limit: 3 } }, 'Code')).toBe('Code: write at least 3 characters');
    expect(words(broken.get('description')!, 'Description')).toBe('Description: too long: shorten it to 2,000 characters or fewer');
  });

  it('minimum, exclusiveMinimum, maximum (the largest file in MB, as typed), exclusiveMaximum and multipleOf', () => {
    expect(words(broken.get('durationMinutes')!, 'Duration (minutes)')).toBe('Duration (minutes): enter 1 or more');
    expect(words(broken.get('sections.1.questions.1.points')!, 'Points', 'Question 2')).toBe('Question 2, Points: enter a number above 0');
    expect(words(broken.get('sections.1.questions.2.maxBytes')!, 'Largest file (MB)', 'Question 3')).toBe('Question 3, Largest file (MB): enter 20 or less');
    expect(words({ field: 'passPercent', message: '', rule: { keyword: 'maximum', limit: 100 } }, 'Pass mark (%)')).toBe('Pass mark (%): enter 100 or less');
    expect(words({ field: 'x', message: '', rule: { keyword: 'exclusiveMaximum', limit: 1 } }, 'Share')).toBe('Share: enter a number below 1');
    expect(words({ field: 'x', message: '', rule: { keyword: 'multipleOf', limit: 5 } }, 'Step')).toBe('Step: enter a multiple of 5');
  });

  it('required, pattern, enum, type, format, an unknown field and an unknown type', () => {
    expect(words(broken.get('sections.1.questions.0.correctOptionId')!, 'Option 1 is correct', 'Question 1')).toBe('Question 1: Mark the correct option');
    expect(words({ field: 'sections.0.questions.0.prompt', message: 'is required', rule: { keyword: 'required' } }, 'Prompt', 'Question 1')).toBe('Question 1, Prompt: fill this in');
    expect(words(broken.get('sections.1.questions.0.id')!, null, 'Question 1')).toBe('Question 1: use only letters, digits, hyphens and underscores (at most 64)');
    expect(words({ field: 'x', message: '', rule: { keyword: 'pattern', pattern: '^asset:ast_' } }, 'Image')).toBe('Image: not written in the form this field takes');
    expect(words(broken.get('proctoring')!, 'Proctoring')).toBe('Proctoring: choose one of: none, record, live_ai');
    expect(words(broken.get('sections.1.questions.0.points')!, 'Points', 'Question 1')).toBe('Question 1, Points: enter a number');
    expect(broken.get('passPercent')!.rule).toEqual({ keyword: 'type', type: 'number or null' });
    expect(words(broken.get('passPercent')!, 'Pass mark (%)')).toBe('Pass mark (%): enter a number');
    expect(words({ field: 'x', message: '', rule: { keyword: 'type', type: 'integer' } }, 'Word limit')).toBe('Word limit: enter a whole number');
    expect(words({ field: 'x', message: '', rule: { keyword: 'format', format: 'uri' } }, 'Link')).toBe('Link: enter a full web address, such as https://example.org');
    expect(words(broken.get('colour')!)).toBe('this field is not part of the test format: remove it in the JSON view');
    expect(words(broken.get('sections.1.questions.4.type')!, 'Question type', 'Question 5')).toBe('Question 5: Choose a question type');
  });

  it('no message the editor shows carries the validator\'s wording', () => {
    for (const p of broken.values()) {
      const text = words(p, 'Field', 'Question 1');
      expect(text).not.toMatch(/must (NOT|be|match|have)|is required|is not a known field|>=|<=/);
    }
  });

  it('a problem of the authoring rules keeps the server\'s words, at its label', () => {
    expect(words({ field: 'questions.0.accept.0', message: '"pdf" is not a MIME type (like application/pdf or image/png)' }, 'Other MIME types', 'Question 1')).toBe(
      'Question 1, Other MIME types: "pdf" is not a MIME type (like application/pdf or image/png)',
    );
  });

  it('every key it formats is sent with the editor page', () => {
    for (const key of used) expect(PROBLEM_MESSAGES).toContain(key);
  });

  it('the preview words a rule as the editor does after a field\'s label, and never with the validator\'s wording', () => {
    const sentences = new Set(['minItems', 'maxItems', 'required', 'discriminator']);
    for (const p of broken.values()) {
      if (!p.rule) continue;
      const server = problemText(p, en);
      expect(server).not.toMatch(/must (NOT|be|match|have)|is required|is not a known field|>=|<=/);
      const plainField = !sentences.has(p.rule.keyword) && !/(^|\.)(title|maxBytes)$/.test(p.field);
      if (plainField) expect(server).toBe(words(p, p.field));
    }
    expect(ruleAdvice({ keyword: 'exclusiveMinimum', limit: 0 }, en)).toBe('enter a number above 0');
  });
});
