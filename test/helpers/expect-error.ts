import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export interface ErrorEnvelope {
  error: { code: string; message: string; requestId: string; details?: Array<{ field: string; message: string }> };
}

/**
 * Asserts the response is the error envelope of docs/api-rules.md "Errors" with
 * this status and code: only `error` at the top, only the documented keys
 * inside, a non-empty message, and the same request id as `X-Request-Id`.
 */
export function expectError(res: LightMyRequestResponse, status: number, code: string): ErrorEnvelope {
  expect({ status: res.statusCode, body: res.body }).toMatchObject({ status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as ErrorEnvelope;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.requestId).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(res.headers['x-request-id']).toBe(body.error.requestId);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'requestId', 'details']).toContain(key);
  if (body.error.details !== undefined) {
    expect(body.error.details.length).toBeGreaterThan(0);
    for (const d of body.error.details) expect(Object.keys(d).sort()).toEqual(['field', 'message']);
  }
  return body;
}

/** The `details[].field` values of an error response. */
export function detailFields(res: LightMyRequestResponse): string[] {
  return ((res.json() as ErrorEnvelope).error.details ?? []).map((d) => d.field);
}
