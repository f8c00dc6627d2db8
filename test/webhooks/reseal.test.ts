import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createSecretBox, generateEndpointSecret } from '../../src/modules/webhooks/secret-box.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * Retiring an ASSAY_SECRET: endpoints registered under the old secret (and a
 * box in the earlier v1 format) are re-sealed under the new first secret by
 * `assay reseal-secrets`, after which the old secret is no longer needed.
 */
const P = '/api/partner/v1';
const OLD = 'test-secret-0123456789abcdef0123456789abcdef';
const NEW = 'new-secret-9876543210fedcba9876543210fedcba';
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { secrets: [OLD] } });
});
afterAll(() => h.close());

function v1Box(serviceSecret: string, secret: string): string {
  const key = createHmac('sha256', serviceSecret).update('assay/webhook-endpoint-secrets/v1').digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return ['v1', createHash('sha256').update(key).digest('hex').slice(0, 8), iv.toString('base64url'), body.toString('base64url')].join('.');
}

async function reseal(secrets: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const config = freezeConfig({ ...h.ctx.config, secrets });
  const code = await runCli(['reseal-secrets'], { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => ({
    pool: h.pool,
    config,
    local: null,
    close: async () => undefined,
  }));
  return { code, report: out.length > 0 ? JSON.parse(out.join('\n')) : null, stderr: err.join('\n') };
}

const row = async (id: string) =>
  (await h.pool.query('SELECT secret_enc, previous_secret_enc FROM webhook_endpoints WHERE id = $1', [id])).rows[0];

describe('assay reseal-secrets', () => {
  it('re-seals current, previous and v1 boxes under the first ASSAY_SECRET, so the old one can be dropped', async () => {
    const created = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha-college.example/a' });
    expect(created.statusCode).toBe(201);
    const { endpointId: rotatedId, secret: first } = created.json();
    const rotated = await h.partner(h.a, 'POST', `${P}/webhook-endpoints/${rotatedId}/rotate-secret`);
    const second = rotated.json().secret;

    const legacy = await h.partner(h.b, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.beta-academy.example/b' });
    const legacyId = legacy.json().endpointId;
    const legacySecret = generateEndpointSecret();
    await h.pool.query('UPDATE webhook_endpoints SET secret_enc = $2 WHERE id = $1', [legacyId, v1Box(OLD, legacySecret)]);

    const newOnly = createSecretBox([NEW]);
    const sealedUnderOld = (await row(rotatedId)).secret_enc;
    expect(() => newOnly.open(sealedUnderOld, rotatedId)).toThrow();

    const run = await reseal([NEW, OLD]);
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({ endpoints: 2, resealed: 2, current: 0, unopenable: [] });

    const r = await row(rotatedId);
    expect(newOnly.open(r.secret_enc, rotatedId)).toBe(second);
    expect(newOnly.open(r.previous_secret_enc, rotatedId)).toBe(first);
    expect(newOnly.open((await row(legacyId)).secret_enc, legacyId)).toBe(legacySecret);

    // A second run finds everything current and changes nothing.
    const before = await row(rotatedId);
    expect((await reseal([NEW, OLD])).report).toMatchObject({ endpoints: 2, resealed: 0, current: 2, unopenable: [] });
    expect(await row(rotatedId)).toEqual(before);
  });

  it('reports endpoints that no configured secret opens, and leaves them untouched', async () => {
    const created = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha-college.example/c' });
    const id = created.json().endpointId;
    const before = await row(id);
    const run = await reseal([NEW]);
    expect(run.report.unopenable).toEqual([id]);
    expect(run.stderr).toMatch(/keep the old secrets/);
    expect(await row(id)).toEqual(before);
  });
});
