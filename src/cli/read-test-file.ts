import fs from 'node:fs/promises';
import type { ValidateFunction } from 'ajv';
import { AppError } from '../platform/errors.js';
import { headline, validationDetails, validatorCompiler } from '../platform/http/validation.js';
import { TestInput } from '../modules/catalog/schemas.js';
import { UsageError } from './command.js';

// The very validator the operator API runs on a POST /tests body, so the CLI accepts exactly what the API accepts.
let validate: ValidateFunction | null = null;

/**
 * Reads a test definition (the body of POST /api/admin/v1/tests) from a JSON
 * file. An unreadable file is a usage error; a file that is not a valid test
 * body is `invalid_request` with every problem in `details`, as over HTTP.
 * The authoring rules are checked later by the tests service itself.
 */
export async function readTestFile(file: string): Promise<TestInput> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_request', `${file} is not valid JSON (${(err as Error).message}).`, [{ field: 'body', message: 'is not valid JSON' }]);
  }
  validate ??= validatorCompiler({ schema: TestInput, httpPart: 'body', method: 'POST', url: '/api/admin/v1/tests' }) as unknown as ValidateFunction;
  if (!validate(body)) {
    const details = validationDetails(validate.errors ?? [], 'body');
    const message = details.length > 1 ? `${file} is not a valid test (${details.length} problems):` : `${file}: ${headline(details)}`;
    throw new AppError('invalid_request', message, details);
  }
  return body as TestInput;
}
