import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ConfigError, parseConfig } from '../../platform/config.js';
import { judgeAttempt, shouldDisableForFailures } from './retry-policy.js';
import { parseRetryAfter } from '../../platform/http/retry-after.js';
import { createSecretBox, generateEndpointSecret } from './secret-box.js';
import { signatureHeader } from './signing.js';
import { checkEndpointUrl, guardedLookup, isAddressAllowed, type Resolver } from './url-guard.js';

const SCHEDULE = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const now = new Date('2030-01-01T00:00:00Z');
const mid = () => 0.5;
const fail = (statusCode: number | null, retryAfterMs: number | null = null) => ({ statusCode, errorClass: statusCode ? null : 'timeout', retryAfterMs });

describe('retry policy', () => {
  it('treats every 2xx as success and 3xx as failure (redirects are not followed)', () => {
    for (const s of [200, 201, 202, 204, 299]) expect(judgeAttempt(fail(s), 1, SCHEDULE, now).kind).toBe('succeeded');
    for (const s of [301, 302, 307, 400, 404, 500]) expect(judgeAttempt(fail(s), 1, SCHEDULE, now).kind).toBe('retry');
  });

  it('follows the schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after attempts 1..7, then gives up', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => {
      const v = judgeAttempt(fail(500), n, SCHEDULE, now, mid);
      return v.kind === 'retry' ? v.nextAttemptAt.getTime() - now.getTime() : null;
    });
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(judgeAttempt(fail(500), 8, SCHEDULE, now).kind).toBe('exhausted');
  });

  it('jitters each wait by at most 10 %', () => {
    for (const r of [0, 0.25, 0.999]) {
      const v = judgeAttempt(fail(null), 2, SCHEDULE, now, () => r);
      if (v.kind !== 'retry') throw new Error('expected a retry');
      const wait = v.nextAttemptAt.getTime() - now.getTime();
      expect(wait).toBeGreaterThanOrEqual(270_000);
      expect(wait).toBeLessThanOrEqual(330_000);
    }
  });

  it('honours Retry-After when it asks for longer than the schedule, and pauses the endpoint', () => {
    const v = judgeAttempt(fail(429, 60_000), 1, SCHEDULE, now, mid);
    expect(v).toEqual({ kind: 'retry', nextAttemptAt: new Date(now.getTime() + 60_000), pauseEndpointUntil: new Date(now.getTime() + 60_000) });
    const shorter = judgeAttempt(fail(503, 1_000), 2, SCHEDULE, now, mid);
    expect(shorter.kind === 'retry' && shorter.nextAttemptAt.getTime() - now.getTime()).toBe(300_000);
    const capped = judgeAttempt(fail(503, 10 * 24 * 3600_000), 1, SCHEDULE, now, mid);
    expect(capped.kind === 'retry' && capped.nextAttemptAt.getTime() - now.getTime()).toBe(24 * 3600_000);
  });

  it('pauses the endpoint on 429, 502, 503 and 504 even without Retry-After, but not on other failures', () => {
    for (const s of [429, 502, 503, 504]) {
      const v = judgeAttempt(fail(s), 1, SCHEDULE, now, mid);
      expect(v.kind === 'retry' && v.pauseEndpointUntil).toEqual(new Date(now.getTime() + 5_000));
    }
    for (const s of [500, 404, null]) {
      const v = judgeAttempt(fail(s), 1, SCHEDULE, now, mid);
      expect(v.kind === 'retry' && v.pauseEndpointUntil).toBeNull();
    }
  });

  it('marks 410 Gone, whatever the attempt', () => {
    expect(judgeAttempt(fail(410), 1, SCHEDULE, now).kind).toBe('gone');
    expect(judgeAttempt(fail(410), 8, SCHEDULE, now).kind).toBe('gone');
  });

  it('disables after exactly 5 days of failures', () => {
    const since = new Date(now.getTime() - 5 * 24 * 3600_000);
    expect(shouldDisableForFailures(since, now)).toBe(true);
    expect(shouldDisableForFailures(new Date(since.getTime() + 1), now)).toBe(false);
    expect(shouldDisableForFailures(null, now)).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(new Date(now.getTime() + 30_000).toUTCString(), now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('signing', () => {
  it('produces signatures the public standardwebhooks library verifies, one per secret', () => {
    const oldSecret = generateEndpointSecret();
    const newSecret = generateEndpointSecret();
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: 'evt_1', type: 'exam.started', timestamp: new Date().toISOString(), data: { é: 'ü' } });
    const header = signatureHeader([newSecret, oldSecret], 'evt_1', ts, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': header };
    expect(new Webhook(newSecret).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(oldSecret).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(generateEndpointSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(newSecret).verify(body.replace('ü', 'u'), headers)).toThrow();
  });
});

describe('secret box', () => {
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(32);

  it('round-trips a secret, and opens it with a rotated ASSAY_SECRET list that still holds the old one', () => {
    const secret = generateEndpointSecret();
    const sealed = createSecretBox([A]).seal(secret, 'whep_one');
    expect(sealed).not.toContain(secret.slice(6));
    expect(createSecretBox([B, A]).open(sealed, 'whep_one')).toBe(secret);
    expect(() => createSecretBox([B]).open(sealed, 'whep_one')).toThrow(/ASSAY_SECRET/);
  });

  it('refuses a tampered box', () => {
    const box = createSecretBox([A]);
    const sealed = box.seal(generateEndpointSecret(), 'whep_one');
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered, 'whep_one')).toThrow();
  });

  it('binds each box to its endpoint: a box copied to another endpoint does not open', () => {
    const box = createSecretBox([A]);
    const sealed = box.seal(generateEndpointSecret(), 'whep_one');
    expect(() => box.open(sealed, 'whep_two')).toThrow();
  });

  it('seals with AES-256-GCM under an HKDF-SHA256 key, the endpoint id as additional data (format v2)', () => {
    const secret = generateEndpointSecret();
    const sealed = createSecretBox([A]).seal(secret, 'whep_one');
    const [version, , iv, body] = sealed.split('.') as [string, string, string, string];
    expect(version).toBe('v2');
    const key = Buffer.from(hkdfSync('sha256', A, 'assay', 'assay/webhook-endpoint-secrets/v2', 32));
    const raw = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from('whep_one'));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    expect(Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString()).toBe(secret);
  });

  it('still opens boxes sealed in the earlier v1 format (HMAC-derived key, no additional data)', () => {
    const secret = generateEndpointSecret();
    const key = createHmac('sha256', A).update('assay/webhook-endpoint-secrets/v1').digest();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
    const v1 = ['v1', keyId, iv.toString('base64url'), body.toString('base64url')].join('.');
    expect(createSecretBox([B, A]).open(v1, 'whep_any')).toBe(secret);
    expect(createSecretBox([A]).isCurrent(v1)).toBe(false);
    expect(createSecretBox([A]).isCurrent(createSecretBox([A]).seal(secret, 'whep_any'))).toBe(true);
    expect(createSecretBox([B, A]).isCurrent(createSecretBox([A]).seal(secret, 'whep_any'))).toBe(false);
  });
});

describe('address rules', () => {
  const strict = { allowInsecure: false };
  const dev = { allowInsecure: true };

  it.each(['10.0.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.1.1', '2002:a00:1::', '64:ff9b::a00:1', 'not-an-ip'])(
    'refuses %s', (ip) => expect(isAddressAllowed(ip, strict)).toBe(false),
  );

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (ip) =>
    expect(isAddressAllowed(ip, strict)).toBe(true),
  );

  // Every IPv6 form that carries an IPv4 address is judged by the IPv4 address it carries.
  it.each([
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible link-local (metadata)', '::a9fe:a9fe'],
    ['IPv4-compatible private', '::10.0.0.1'],
    ['IPv4-translated loopback', '::ffff:0:7f00:1'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['NAT64 local-use prefix of a private address', '64:ff9b:1::a00:1'],
    ['6to4 of loopback', '2002:7f00:1::1'],
    ['6to4 of the metadata address', '2002:a9fe:a9fe::'],
    ['Teredo whose client is private', '2001:0:808:808:0:0:f5ff:fffe'],
    ['Teredo whose server is private', '2001:0:a00:1:0:0:f7f7:f7f7'],
  ])('refuses %s (%s)', (_what, ip) => expect(isAddressAllowed(ip, strict)).toBe(false));

  it.each(['64:ff9b::808:808', '2002:808:808::1', '2001:0:808:808:0:0:f7f7:f7f7', '::808:808'])(
    'allows %s, which carries a public IPv4 address',
    (ip) => expect(isAddressAllowed(ip, strict)).toBe(true),
  );

  it.each(['https://[::127.0.0.1]/hook', 'https://[::7f00:1]/hook', 'https://[::a9fe:a9fe]/', 'https://[64:ff9b::a9fe:a9fe]/'])(
    'refuses the endpoint URL %s at registration',
    (url) => expect(() => checkEndpointUrl(url, strict)).toThrow(/not a public address/),
  );

  it.each(['https://metadata./', 'https://metadata/', 'https://localhost./', 'https://metadata.google.internal./', 'https://printer.local../'])(
    'refuses the one-label or internal host name %s, trailing dots or not',
    (url) => expect(() => checkEndpointUrl(url, strict)).toThrow(/not a public host name|absolute URL/),
  );

  it('allows loopback, and only loopback, with the development switch', () => {
    expect(isAddressAllowed('127.0.0.1', dev)).toBe(true);
    expect(isAddressAllowed('::1', dev)).toBe(true);
    expect(isAddressAllowed('10.0.0.1', dev)).toBe(false);
    expect(isAddressAllowed('169.254.169.254', dev)).toBe(false);
  });

  function lookup(resolver: Resolver, all: boolean) {
    return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup(strict, resolver)('hooks.partner.example', { all }, (err, address) => resolve({ err, address })),
    );
  }

  it('refuses a host name if any of its addresses is not public, and hands back only checked addresses', async () => {
    const mixed: Resolver = async () => [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }];
    expect((await lookup(mixed, true)).err?.code).toBe('EADDRNOTALLOWED');
    const good: Resolver = async () => [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1', family: 6 }];
    expect((await lookup(good, true)).address).toEqual([{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1', family: 6 }]);
    expect((await lookup(good, false)).address).toBe('93.184.215.14');
  });
});

describe('webhook configuration', () => {
  const base = { DATABASE_URL: 'postgres://u@h/db', ASSAY_ADMIN_TOKEN: 'x'.repeat(24), ASSAY_SECRET: 's'.repeat(32) };

  it('defaults to the Standard Webhooks schedule, a 15 s timeout and a lease twice as long', () => {
    expect(parseConfig(base).webhooks).toEqual({
      retryScheduleMs: SCHEDULE,
      timeoutMs: 15_000,
      leaseMs: 30_000,
      concurrency: 64,
      endpointConcurrency: 8,
    });
  });

  it('accepts a compressed schedule for tests and development', () => {
    const c = parseConfig({ ...base, ASSAY_WEBHOOK_RETRY_SCHEDULE: '0,100ms,1s,2m,1h', ASSAY_WEBHOOK_TIMEOUT_MS: '500', ASSAY_WEBHOOK_LEASE_MS: '800' });
    expect(c.webhooks).toMatchObject({ retryScheduleMs: [0, 100, 1000, 120_000, 3_600_000], timeoutMs: 500, leaseMs: 800 });
  });

  it.each([
    ['ASSAY_WEBHOOK_RETRY_SCHEDULE', '5s,10s'],
    ['ASSAY_WEBHOOK_RETRY_SCHEDULE', '0,soon'],
    ['ASSAY_WEBHOOK_RETRY_SCHEDULE', '0,200h'],
    ['ASSAY_WEBHOOK_TIMEOUT_MS', '50'],
    ['ASSAY_WEBHOOK_LEASE_MS', '10000'],
    ['ASSAY_WEBHOOK_CONCURRENCY', '0'],
  ])('stops on a bad %s (%s) naming the variable', (name, value) => {
    try {
      parseConfig({ ...base, [name]: value });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe(name);
    }
  });
});
