import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { assignmentBody, type Harness, type Tenant } from './harness.js';

/** Helpers for driving the student journey over HTTP (no browser): a cookie jar of one, and the page's CSRF token. */

export const ALL_TYPES_TEST: TestInput = {
  title: 'Every Question Type',
  description: 'One question of each kind.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { id: 'sc', type: 'single_choice', prompt: 'Capital of France?', points: 2, options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
    {
      id: 'mc',
      type: 'multiple_choice',
      prompt: 'Pick the even numbers',
      points: 4,
      options: [{ id: 'two', text: '2' }, { id: 'three', text: '3' }, { id: 'four', text: '4' }, { id: 'five', text: '5' }],
      correctOptionIds: ['two', 'four'],
      partialCredit: true,
    },
    { id: 'st', type: 'short_text', prompt: 'Opposite of "cold"?', points: 1, acceptedAnswers: ['hot'] },
    { id: 'nu', type: 'numeric', prompt: 'Pi to two decimals?', points: 3, answer: 3.14, tolerance: 0.005 },
    { id: 'es', type: 'essay', prompt: 'Describe your morning.', points: 10, maxWords: 50 },
  ],
};

export async function createPublishedTest(h: Harness, tenant: Tenant, input: TestInput): Promise<string> {
  const created = await h.admin('POST', '/api/admin/v1/tests', input);
  expect(created.statusCode).toBe(201);
  const testId = created.json().testId as string;
  const published = await h.admin('PUT', `/api/admin/v1/tests/${testId}/publications/${tenant.institutionId}`);
  expect(published.statusCode).toBe(204);
  return testId;
}

export async function assign(h: Harness, tenant: Tenant, overrides: Record<string, unknown> = {}) {
  const res = await h.partner(tenant, 'POST', '/api/partner/v1/assignments', assignmentBody(tenant, overrides));
  expect(res.statusCode).toBe(201);
  return res.json() as { assignmentId: string; startUrl: string; startUrlExpiresAt: string };
}

export async function readAssignment(h: Harness, tenant: Tenant, assignmentId: string) {
  const res = await h.partner(tenant, 'GET', `/api/partner/v1/assignments/${assignmentId}`);
  expect(res.statusCode).toBe(200);
  return res.json();
}

export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export function csrfFrom(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF token on the page');
  return m[1]!;
}

/** One student's browser, minus the browser: the session cookie and the token of the last page seen. */
export class Student {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(private readonly h: Harness) {}

  async open(startUrl: string): Promise<LightMyRequestResponse> {
    const res = await this.h.app.inject({ method: 'GET', url: pathOf(startUrl) });
    const set = res.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) this.cookie = first.split(';')[0]!;
    return res;
  }

  async page(assignmentId: string): Promise<LightMyRequestResponse> {
    const res = await this.get(`/a/${assignmentId}`);
    const m = /name="csrf" value="([^"]+)"/.exec(res.body);
    if (m) this.csrf = m[1]!;
    return res;
  }

  get(url: string): Promise<LightMyRequestResponse> {
    return this.h.app.inject({ method: 'GET', url, headers: this.cookie ? { cookie: this.cookie } : {} });
  }

  postForm(url: string, fields: Record<string, string> = { csrf: this.csrf ?? '' }): Promise<LightMyRequestResponse> {
    return this.h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  begin(assignmentId: string) {
    return this.postForm(`/a/${assignmentId}/begin`);
  }

  submit(assignmentId: string) {
    return this.postForm(`/a/${assignmentId}/submit`);
  }

  save(assignmentId: string, answers: Array<{ questionId: string; value: unknown; version: number }>, csrf = this.csrf) {
    return this.h.app.inject({
      method: 'POST',
      url: `/a/${assignmentId}/answers`,
      headers: { 'content-type': 'application/json', ...(this.cookie ? { cookie: this.cookie } : {}), ...(csrf ? { 'x-csrf-token': csrf } : {}) },
      payload: JSON.stringify({ answers }),
    });
  }

  /** Opens the link, follows to the page, and begins: the attempt is running afterwards. */
  async start(startUrl: string): Promise<string> {
    const opened = await this.open(startUrl);
    expect(opened.statusCode).toBe(303);
    const assignmentId = String(opened.headers.location).replace('/a/', '');
    await this.page(assignmentId);
    const begun = await this.begin(assignmentId);
    expect(begun.statusCode).toBe(303);
    return assignmentId;
  }
}
