import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/platform/config.js';
import { ERROR_STATUS } from '../src/platform/errors.js';
import { validationDetails, validatorCompiler } from '../src/platform/http/validation.js';
import { CreateAssignmentBody } from '../src/modules/assignments/schemas.js';

/**
 * The project's documentation stands alone and agrees with the code: no
 * reference to a file outside the repository, every relative link resolves,
 * the example bodies are accepted by the API's own validator, and the numbers
 * and codes it states are the code's.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the documentation', () => {
  it('refers to nothing outside the repository: no decisions.md, every relative link resolves', () => {
    const sources = [...DOCS, ...fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => `src/${f}`)];
    for (const f of sources) expect(read(f), f).not.toMatch(/decisions\.md|\(decisions:/);
    for (const f of DOCS) {
      for (const [, target] of read(f).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        expect(fs.existsSync(path.resolve(ROOT, path.dirname(f), target!)), `${f} → ${target}`).toBe(true);
      }
    }
  });

  it('shows a whole POST /assignments body that the API accepts, with every field it takes', () => {
    const readme = read('README.md');
    // The second example after the heading: the first is the smallest body (the next test).
    const section = readme.slice(readme.indexOf('**Every field, the optional ones too**'));
    const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(json).toBeDefined();
    const body = JSON.parse(json!);
    const validate = validatorCompiler({ schema: CreateAssignmentBody, httpPart: 'body', method: 'POST', url: '/api/partner/v1/assignments' }) as unknown as {
      (v: unknown): boolean;
      errors?: never[];
    };
    expect(validate(body), JSON.stringify(validationDetails(validate.errors ?? [], 'body'))).toBe(true);
    expect(Object.keys(body).sort()).toEqual(Object.keys(CreateAssignmentBody.properties).sort());
  });

  it('shows the smallest POST /assignments body: the required fields alone, each of which the API refuses the body without', () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('**Creating an assignment.**'));
    const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    const body = JSON.parse(json!) as Record<string, unknown>;
    const validate = validatorCompiler({ schema: CreateAssignmentBody, httpPart: 'body', method: 'POST', url: '/api/partner/v1/assignments' }) as unknown as (v: unknown) => boolean;
    expect(validate(body)).toBe(true);
    expect(Object.keys(body).sort()).toEqual([...CreateAssignmentBody.required].sort());
    expect(Object.keys(body).sort()).toEqual(['callbackUrl', 'externalUserId', 'testId', 'user']);
    for (const field of Object.keys(body)) expect(validate(Object.fromEntries(Object.entries(body).filter(([k]) => k !== field))), field).toBe(false);
    for (const field of Object.keys(body)) expect(section.slice(0, section.indexOf('```json')), field).toContain(`\`${field}\``);
  });

  it('states the rate limit the code applies, and what RateLimit-Limit means', () => {
    const { perSecond, burst } = parseConfig({}).rateLimit;
    const readme = read('README.md');
    expect(readme).toContain(`a token bucket of ${burst} requests refilled at ${perSecond} per second`);
    expect(readme).toContain(`\`RateLimit-Limit: ${burst}\` (the bucket size)`);
  });

  it('lists every error code with its status, and no other', () => {
    const rules = read('docs/api-rules.md');
    const table = rules.slice(rules.indexOf('## Errors'), rules.indexOf('## Authentication'));
    const listed = new Map<string, number>();
    for (const [, status, codes] of table.matchAll(/^\| (\d{3}) \| ([^|]+) \|/gm)) {
      for (const [, code] of codes!.matchAll(/`(\w+)`/g)) listed.set(code!, Number(status));
    }
    expect(Object.fromEntries(listed)).toEqual(ERROR_STATUS);
  });

  it('says how long a start link lives once the test is under way, as the code does (not capped by dueAt)', () => {
    for (const f of ['README.md', 'docs/api-rules.md']) expect(read(f), f).toMatch(/once `started`[^.]*`now \+ 7 days`, even past `dueAt`/);
  });
});
