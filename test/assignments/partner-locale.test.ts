import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

/**
 * The partner's `locale` on POST /assignments (docs/languages.md): kept as
 * sent and echoed on the read (null when not given), a malformed tag refused
 * before anything is written, a well-formed one without a catalogue kept,
 * part of the Idempotency-Key's body like every other field, and read by
 * the owning institution only.
 */
const URL_ = '/api/partner/v1/assignments';
const clock = manualClock(new Date('2031-05-01T10:00:00.000Z'));
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const create = (overrides: Record<string, unknown>, headers?: Record<string, string>) => h.partner(h.a, 'POST', URL_, assignmentBody(h.a, overrides), headers);
const read = (id: string, tenant = h.a) => h.partner(tenant, 'GET', `${URL_}/${id}`);
const storedLocale = async (id: string) => (await h.pool.query('SELECT locale FROM assignments WHERE id = $1', [id])).rows[0]?.locale as string | null | undefined;
const assignmentCount = async () => (await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM assignments')).rows[0]!.n;

describe('POST /assignments `locale`', () => {
  it('is stored as sent and echoed on the read; the creation response keeps its fields', async () => {
    const res = await create({ externalUserId: 'loc-1', locale: 'fr-CA' });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.json()).sort()).toEqual(['assignmentId', 'createdAt', 'externalUserId', 'startUrl', 'startUrlExpiresAt', 'status', 'testId']);
    const id = res.json().assignmentId as string;
    expect(await storedLocale(id)).toBe('fr-CA');
    const body = (await read(id)).json();
    expect(body.locale).toBe('fr-CA');
  });

  it('keeps the tag exactly as sent, not canonicalised', async () => {
    const res = await create({ externalUserId: 'loc-case', locale: 'zh-hans-cn' });
    expect(res.statusCode).toBe(201);
    expect((await read(res.json().assignmentId)).json().locale).toBe('zh-hans-cn');
  });

  it('is null on the read when not given', async () => {
    const res = await create({ externalUserId: 'loc-none' });
    expect(res.statusCode).toBe(201);
    const body = (await read(res.json().assignmentId)).json();
    expect(body).toHaveProperty('locale', null);
    expect(await storedLocale(res.json().assignmentId)).toBeNull();
  });

  it.each(['nl', 'sw', 'tlh', 'sr-Latn-RS'])('accepts %s, a well-formed tag the pages have no catalogue for', async (tag) => {
    const res = await create({ externalUserId: `loc-${tag}`, locale: tag });
    expect(res.statusCode).toBe(201);
    expect((await read(res.json().assignmentId)).json().locale).toBe(tag);
  });

  it.each(['en_US', 'fr-', '-fr', 'fr--CA', '12', 'f', ' fr', 'fr ', 'français', 'en-US-u'])(
    'refuses the malformed %j with 400 invalid_request naming `locale`, and creates nothing',
    async (tag) => {
      const before = await assignmentCount();
      const res = await create({ externalUserId: 'loc-bad', locale: tag });
      const body = expectError(res, 400, 'invalid_request');
      expect(detailFields(res)).toEqual(['locale']);
      expect(body.error.message).toContain('locale');
      expect(await assignmentCount()).toBe(before);
    },
  );

  it('refuses an empty locale, or one over 35 characters even when well-formed, with 400 naming `locale`', async () => {
    const long = 'en-US-u-ca-gregory-co-phonebk-nu-latn';
    expect(long.length).toBe(37);
    for (const tag of ['', long]) {
      const before = await assignmentCount();
      const res = await create({ externalUserId: 'loc-len', locale: tag });
      expectError(res, 400, 'invalid_request');
      expect(detailFields(res).join(' ')).toContain('locale');
      expect(await assignmentCount()).toBe(before);
    }
  });

  it('a refused locale with an Idempotency-Key stores no key: the corrected request then creates', async () => {
    const refused = await create({ externalUserId: 'loc-key-bad', locale: 'fr_CA' }, { 'idempotency-key': 'loc-key-refused' });
    expectError(refused, 400, 'invalid_request');
    expect((await h.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', ['loc-key-refused'])).rowCount).toBe(0);
    const fixed = await create({ externalUserId: 'loc-key-bad', locale: 'fr-CA' }, { 'idempotency-key': 'loc-key-refused' });
    expect(fixed.statusCode).toBe(201);
  });

  it('is part of the Idempotency-Key body: the same locale replays, another (or none) is 409', async () => {
    const first = await create({ externalUserId: 'loc-idem', locale: 'de' }, { 'idempotency-key': 'loc-key' });
    expect(first.statusCode).toBe(201);
    const before = await assignmentCount();
    const again = await create({ externalUserId: 'loc-idem', locale: 'de' }, { 'idempotency-key': 'loc-key' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expectError(await create({ externalUserId: 'loc-idem', locale: 'de-AT' }, { 'idempotency-key': 'loc-key' }), 409, 'idempotency_key_reused');
    expectError(await create({ externalUserId: 'loc-idem' }, { 'idempotency-key': 'loc-key' }), 409, 'idempotency_key_reused');
    expect(await assignmentCount()).toBe(before);
    expect(await storedLocale(first.json().assignmentId)).toBe('de');
  });

  it('another institution cannot read it: 404 as for an unknown id', async () => {
    const res = await create({ externalUserId: 'loc-iso', locale: 'ja' });
    const id = res.json().assignmentId as string;
    const foreign = await read(id, h.b);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).not.toContain('ja');
    expect(foreign.json().error.message).toBe((await read('asg_0000000000000000000000', h.b)).json().error.message);
    expect((await read(id)).json().locale).toBe('ja');
  });
});
