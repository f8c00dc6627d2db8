import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../errors.js';
import { MAX_DETAILS, validationDetails, validatorCompiler } from './validation.js';

type Validate = ((data: unknown) => boolean) & { errors?: Parameters<typeof validationDetails>[0] | null };

const compile = (schema: object): Validate => validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' } as never) as unknown as Validate;

/**
 * The details of a refused body, and the fastest of three runs over its errors in ms (the best run
 * measures the work, not the other processes of a busy machine).
 */
function refused(validate: Validate, body: unknown): { details: ErrorDetail[]; ms: number } {
  expect(validate(body)).toBe(false);
  const errors = validate.errors ?? [];
  let ms = Infinity;
  let details: ErrorDetail[] = [];
  for (let run = 0; run < 3 && ms > 1; run++) {
    const t0 = performance.now();
    details = validationDetails(errors, 'body');
    ms = Math.min(ms, performance.now() - t0);
    if (ms > 1_000) break; // plainly too slow: no need to measure again
  }
  return { details, ms };
}

describe('validation details', () => {
  // An array with no maxItems: the size pass lets it through, so ajv reports one error per item.
  const unbounded = compile(Type.Object({ values: Type.Array(Type.String()) }));

  // The old details took 4.7 s for these 20,000 errors (quadratic); a linear pass takes a few ms.
  // The bounds tell linear from quadratic with room for a machine busy with other test files.
  it('turns 20,000 errors into details in well under a second (linear, not quadratic)', () => {
    const { details, ms } = refused(unbounded, { values: Array(20_000).fill(0) });
    expect(ms).toBeLessThan(1_000);
    expect(details).toHaveLength(MAX_DETAILS);
  });

  it('lists at most 20 details, the last saying how many more problems there were', () => {
    const { details } = refused(unbounded, { values: Array(5_000).fill(0) });
    expect(details).toHaveLength(20);
    expect(details[0]).toEqual({ field: 'values.0', message: 'must be string' });
    expect(details[18]).toEqual({ field: 'values.18', message: 'must be string' });
    expect(details[19]).toEqual({ field: 'body', message: 'and 4981 more problems (the first 19 are listed)' });
  });

  it('lists every problem when there are 20 or fewer', () => {
    const { details } = refused(unbounded, { values: Array(20).fill(0) });
    expect(details.map((d) => d.field)).toEqual(Array.from({ length: 20 }, (_, i) => `values.${i}`));
  });

  it('collapses 20,000 failing unions in linear time, each reported at its own value', () => {
    const union = compile(Type.Object({ values: Type.Array(Type.Union([Type.String(), Type.Null()])) }));
    const values: unknown[] = Array(20_000).fill(0);
    const { details, ms } = refused(union, { values });
    expect(ms).toBeLessThan(1_000);
    expect(details[0]).toEqual({ field: 'values.0', message: 'must be string or null' });
    expect(details[1]).toEqual({ field: 'values.1', message: 'must be string or null' });
  });

  it('reports a union value that matches no branch even when a later value of the same union fails inside a branch', () => {
    const union = compile(Type.Object({ values: Type.Array(Type.Union([Type.Array(Type.String()), Type.Null()])) }));
    const { details } = refused(union, { values: [5, [7]] });
    expect(details).toEqual([
      { field: 'values.0', message: 'must be array or null' },
      { field: 'values.1.0', message: 'must be string' },
    ]);
  });
});

describe('the size pass before validation', () => {
  const answers = compile(
    Type.Object(
      {
        answers: Type.Array(
          Type.Object(
            {
              questionId: Type.String(),
              value: Type.Union([Type.Null(), Type.String(), Type.Array(Type.String(), { maxItems: 50 }), Type.Record(Type.String(), Type.String(), { maxProperties: 50 })]),
            },
            { additionalProperties: false },
          ),
          { maxItems: 500 },
        ),
      },
      { additionalProperties: false },
    ),
  );

  it('refuses an oversized array with one detail, without looking at its items', () => {
    const body = { answers: [{ questionId: 'q', value: Array(524_000).fill(0) }] };
    const t0 = performance.now();
    expect(answers(body)).toBe(false);
    expect(answers.errors).toHaveLength(1); // the full pass alone made 524k errors, in 400 ms and 130 MB
    expect(performance.now() - t0).toBeLessThan(250);
    const { details } = refused(answers, body);
    expect(details).toEqual([{ field: 'answers.0.value', message: 'must NOT have more than 50 items' }]);
  });

  it('finds an oversized value behind one of the wrong type', () => {
    const { details } = refused(answers, { answers: [{ questionId: 'q', value: 5 }, { questionId: 'q', value: Array(51).fill('a') }] });
    expect(details).toEqual([{ field: 'answers.1.value', message: 'must NOT have more than 50 items' }]);
  });

  it('refuses an oversized record, and an object with far more unknown fields than known ones', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'x']));
    expect(refused(answers, { answers: [{ questionId: 'q', value: many(51) }] }).details).toEqual([
      { field: 'answers.0.value', message: 'must NOT have more than 50 properties' },
    ]);
    const unknown = { answers: [{ questionId: 'q', value: 'x', ...many(10_000) }] };
    expect(answers(unknown)).toBe(false);
    expect(answers.errors).toHaveLength(1);
    expect(refused(answers, unknown).details).toEqual([
      { field: 'answers.0', message: 'has 10002 fields, but only 2 are known' },
    ]);
  });

  it('leaves a body within its bounds to the full validation, with every problem', () => {
    const { details } = refused(answers, { answers: [{ questionId: 7, value: ['a', 1], extra: true }] });
    expect(details).toEqual([
      { field: 'answers.0.extra', message: 'is not a known field' },
      { field: 'answers.0.questionId', message: 'must be string' },
      { field: 'answers.0.value.1', message: 'must be string' },
    ]);
  });

  it('accepts a body within its bounds', () => {
    expect(answers({ answers: [{ questionId: 'q', value: Array(50).fill('a') }, { questionId: 'r', value: null }] })).toBe(true);
  });
});
