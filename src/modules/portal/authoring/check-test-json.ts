import type { ErrorDetail } from '../../../platform/errors.js';
import { validationDetails, validatorCompiler } from '../../../platform/http/validation.js';
import type { ErrorObject } from 'ajv';
import { TestInput } from '../../catalog/schemas.js';
import type { AdminTestView } from '../../catalog/tests-service.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';
import { lineOf, scanJson } from './json-locations.js';

/**
 * The test editor's checks, in the order a person fixes things: JSON syntax
 * (with line and column), then the operator API's schema for a test (the
 * same validator as `POST /api/admin/v1/tests`), each problem placed on the
 * line of the JSON it concerns. The authoring rules beyond the schema are
 * checked by the tests service itself (createTest/updateTest); `locate`
 * places its details the same way.
 */
export interface LineError {
  line: number | null;
  /** A syntax error's column on its line. */
  column?: number;
  field: string;
  message: string;
}

export type CheckedTest = { ok: true; input: TestInput; lines: Map<string, number> } | { ok: false; errors: LineError[] };

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validate = validatorCompiler({ schema: TestInput, method: 'POST', url: '/portal/tests', httpPart: 'body' }) as unknown as Validate;

export function checkTestJson(text: string, t: Translator = portalTranslator()): CheckedTest {
  if (text.trim() === '') return { ok: false, errors: [{ line: null, field: 'json', message: t.t('portal.authoring.json.empty') }] };
  const scan = scanJson(text, t);
  if (!scan.ok) return { ok: false, errors: [{ line: scan.line, column: scan.column, field: 'json', message: scan.message }] };
  const value: unknown = JSON.parse(text);
  if (!validate(value)) return { ok: false, errors: locate(validationDetails(validate.errors ?? [], 'body'), scan.lines) };
  return { ok: true, input: value as TestInput, lines: scan.lines };
}

export function locate(details: ErrorDetail[], lines: Map<string, number>): LineError[] {
  const seen = new Set<string>();
  return details
    .map((d) => ({ line: d.field === 'body' ? 1 : lineOf(lines, d.field), field: d.field, message: d.message }))
    .filter((e) => {
      // ajv reports each failed branch of a union; one line per field and message is enough.
      const key = `${e.field} ${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

/** A stored test as the editor's JSON (the operator API's input format), questions with their ids. */
export function testToJson(t: AdminTestView): string {
  const input: TestInput = {
    title: t.title,
    description: t.description,
    durationMinutes: t.durationMinutes,
    proctoring: t.proctoring,
    marking: t.marking,
    resultVisibility: t.resultVisibility,
    passPercent: t.passPercent,
    ...(t.sections ? { sections: t.sections } : { questions: t.questions }),
  };
  return JSON.stringify(input, null, 2);
}

/** What the JSON editor starts from: a small complete test, its words in the author's language. */
export function newTestTemplate(t: Translator): string {
  return JSON.stringify(
    {
      title: t.t('portal.authoring.template.title'),
      description: t.t('portal.authoring.template.description'),
      durationMinutes: 30,
      proctoring: 'none',
      marking: 'hybrid',
      resultVisibility: 'after_review',
      passPercent: 50,
      questions: [
        {
          id: 'q1',
          type: 'single_choice',
          prompt: t.t('portal.authoring.template.choicePrompt'),
          points: 1,
          options: [
            { id: 'a', text: '9' },
            { id: 'b', text: '11' },
          ],
          correctOptionId: 'b',
        },
        { id: 'q2', type: 'essay', prompt: t.t('portal.authoring.template.essayPrompt'), points: 5, rubric: t.t('portal.authoring.template.essayRubric'), maxWords: 200 },
      ],
    },
    null,
    2,
  );
}
