import type { ValidateFunction } from 'ajv';
import { validationDetails, validatorCompiler } from '../../../platform/http/validation.js';
import { AppError } from '../../../platform/errors.js';
import { capDetails } from './report.js';
import { QuestionSchema, TestInput as TestInputSchema, type QuestionInput, type TestInput } from '../schemas.js';

let validate: ValidateFunction | null = null;
let validateTest: ValidateFunction | null = null;

/** Why a mapped question would not pass POST /tests (its schema: lengths, counts, bounds); null when it fits. */
export function questionProblem(q: QuestionInput): string | null {
  validate ??= validatorCompiler({ schema: QuestionSchema, httpPart: 'body', method: 'POST', url: '/api/admin/v1/tests/import' }) as unknown as ValidateFunction;
  if (validate(q)) return null;
  const d = validationDetails(validate.errors ?? [], undefined)[0];
  return d ? `${d.field} ${d.message}` : 'is not a valid question';
}

/** Marking settings an imported test gets: auto unless a person must mark something (then after review). */
export function settingsFor(questions: readonly QuestionInput[]): Pick<TestInput, 'marking' | 'resultVisibility'> {
  const manual = questions.filter((q) => q.type === 'essay' || q.type === 'file_upload').length;
  if (manual === 0) return { marking: 'auto', resultVisibility: 'immediate' };
  return { marking: manual === questions.length ? 'manual' : 'hybrid', resultVisibility: 'after_review' };
}

/**
 * The whole imported test checked as POST /tests checks a body (section
 * count, lengths…), so an import never stores what the API would refuse:
 * 400 with every problem, naming where in the test.
 */
export function checkImportedTest(input: TestInput): void {
  validateTest ??= validatorCompiler({ schema: TestInputSchema, httpPart: 'body', method: 'POST', url: '/api/admin/v1/tests/import' }) as unknown as ValidateFunction;
  if (validateTest(structuredClone(input))) return;
  const details = validationDetails(validateTest.errors ?? [], undefined);
  throw new AppError('invalid_request', `The imported test does not fit Assay's limits: ${details[0]?.field ?? 'test'} ${details[0]?.message ?? 'is not valid'}`, capDetails(details));
}
