import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validationDetails, validatorCompiler } from '../src/platform/http/validation.js';
import { checkTestInput } from '../src/modules/catalog/authoring.js';
import { QuestionSchema, TestInput } from '../src/modules/catalog/schemas.js';
import { questionTypeNames } from '../src/modules/catalog/question-types/registry.js';

/**
 * The example tests of docs/test-format.md are bodies the API accepts:
 * each passes `POST /api/admin/v1/tests`'s schema with the server's own
 * validator (the same ajv settings) and then the authoring rules, there is
 * one per question type, and every example file the page names exists.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.join(ROOT, 'docs/examples/tests');
const FILES = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const TYPES = (QuestionSchema as unknown as { oneOf: Array<{ properties: { type: { const: string } } }> }).oneOf.map((s) => s.properties.type.const);

const BUILT_IN = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload', 'composite'];
type Validate = ((v: unknown) => boolean) & { errors?: never[] };
const validate = validatorCompiler({ schema: TestInput, httpPart: 'body', method: 'POST', url: '/api/admin/v1/tests' }) as unknown as Validate;

function load(file: string): TestInput {
  return JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as TestInput;
}

describe('the example tests in docs/examples/tests', () => {
  it.each(FILES)('%s passes the schema and the authoring rules', (file) => {
    const body = load(file);
    expect(validate(body), JSON.stringify(validationDetails(validate.errors ?? [], 'body'))).toBe(true);
    expect(() => checkTestInput(body)).not.toThrow();
  });

  it('holds one test per question type, each of that type only, and a sectioned exam', () => {
    // The built-in types and every registered one, each once: a registered type adds its example file, not a line here.
    expect(new Set(TYPES).size).toBe(TYPES.length);
    expect(TYPES).toEqual(expect.arrayContaining([...BUILT_IN, ...questionTypeNames()]));
    expect(TYPES).toHaveLength(new Set([...BUILT_IN, ...questionTypeNames()]).size);
    expect(FILES).toEqual([...TYPES.map((t) => `${t}.json`), 'parametrised.json', 'sectioned-exam.json'].sort());
    for (const type of TYPES) {
      const { questions } = checkTestInput(load(`${type}.json`));
      // The composite example also holds one plain question, to show how the two sit in one test.
      expect(new Set(questions.map((q) => q.type)), type).toEqual(new Set(type === 'composite' ? ['composite', 'single_choice'] : [type]));
    }
  });

  it('shows in the sectioned exam several sections, a pool, both shuffles and several types', () => {
    const exam = load('sectioned-exam.json');
    const { questions, sections } = checkTestInput(exam);
    expect(sections!.length).toBeGreaterThan(1);
    expect(sections!.some((s) => s.draw !== null && s.draw < s.questionIds.length)).toBe(true);
    expect(sections!.some((s) => s.shuffleQuestions)).toBe(true);
    expect(questions.some((q) => (q.type === 'single_choice' || q.type === 'multiple_choice') && q.shuffleOptions)).toBe(true);
    expect(new Set(questions.map((q) => q.type)).size).toBeGreaterThanOrEqual(5);
  });

  it('shows parametrised numeric and short-text questions, every one with variables and a formula', () => {
    const { questions } = checkTestInput(load('parametrised.json'));
    expect(new Set(questions.map((q) => q.type))).toEqual(new Set(['numeric', 'short_text']));
    for (const q of questions) expect(q).toMatchObject({ variables: expect.any(Array), answerFormula: expect.any(String) });
  });

  it('is refused by the same checks when it breaks a rule (the checks can fail)', () => {
    const broken = load('matching.json');
    const q = broken.questions![0]! as Extract<NonNullable<TestInput['questions']>[number], { type: 'matching' }>;
    q.correct = { ...q.correct, nowhere: 'statin' };
    expect(() => checkTestInput(broken)).toThrow(/"nowhere" is not one of the stems/);
    expect(validate({ ...load('ordering.json'), questions: [{ type: 'ordering', prompt: 'Too few', points: 1, items: [{ id: 'a', text: 'A' }] }] })).toBe(false);
  });

  it('names, in docs/test-format.md, only example files that exist, and every one of them', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/test-format.md'), 'utf8');
    const named = new Set([...page.matchAll(/examples\/tests\/([\w-]+\.json)/g)].map((m) => m[1]!));
    for (const f of named) expect(fs.existsSync(path.join(DIR, f)), f).toBe(true);
    expect([...named].sort()).toEqual(FILES);
  });
});
