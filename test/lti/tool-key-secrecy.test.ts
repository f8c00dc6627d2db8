import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createSecretBox } from '../../src/modules/webhooks/secret-box.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { INSTRUCTOR, LTI, startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, registerPlatform } from '../helpers/lti.js';

/**
 * The tool's private key never leaves the database sealed: /lti/jwks holds
 * public parameters only, and neither the log nor an error body carries the
 * key (as PEM, as its sealed box, or as a private JWK parameter), whether
 * signing works or the sealed key cannot be opened.
 */
const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
let h: Harness;
let logged: Harness;
let platform: FakePlatform;
const lines: string[] = [];

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true, secrets: [SECRET] } });
  const config = freezeConfig({ ...h.ctx.config, logLevel: 'debug' });
  const app = await buildServer(serverContext({ config, pool: h.pool, clock: h.clock }), { logStream: { write: (line) => void lines.push(line) } });
  logged = { ...h, app };
  platform = await startFakePlatform({ toolJwks: async () => (await app.inject({ method: 'GET', url: '/lti/jwks' })).json() });
  await registerPlatform(h, h.a, platform);
});
afterAll(async () => {
  await logged?.app.close();
  await platform?.close();
  await h?.close();
});

const DL = 'https://purl.imsglobal.org/spec/lti-dl/claim/';

/** A deep-linking launch and the choice of a test: the answer is signed with the tool's current key. */
async function chooseTest(hint: string) {
  const b = new LtiBrowser(logged);
  const picker = await b.launch(platform, hint, {
    [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
    [`${LTI}roles`]: [INSTRUCTOR],
    [`${DL}deep_linking_settings`]: { deep_link_return_url: `${platform.baseUrl}/deep-link-return`, accept_types: ['ltiResourceLink'] },
  });
  expect(picker.statusCode).toBe(200);
  const token = /name="picker_token" value="([^"]+)"/.exec(picker.body)![1]!;
  return b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId });
}

async function keyMaterial(): Promise<string[]> {
  const box = createSecretBox([SECRET]);
  const { rows } = await h.pool.query<{ kid: string; private_key_sealed: string }>('SELECT kid, private_key_sealed FROM lti_tool_keys');
  const out: string[] = [];
  for (const r of rows) {
    out.push(r.private_key_sealed, r.private_key_sealed.split('.').at(-1)!);
    try {
      const pem = box.open(r.private_key_sealed, `lti-tool-key:${r.kid}`);
      // Every line of the PEM body: any fragment of the key in a log line would match one.
      out.push(...pem.split('\n').filter((l) => l.length > 40));
    } catch {
      // a deliberately corrupted box below
    }
  }
  return out;
}

describe("the tool's private key", () => {
  it('is not in /lti/jwks, the deep-linking answer or the log when signing works', async () => {
    const jwks = (await logged.app.inject({ method: 'GET', url: '/lti/jwks' })).json() as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const k of jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
    const chosen = await chooseTest('teacher-secret-1');
    expect(chosen.statusCode).toBe(200);
    const material = await keyMaterial();
    expect(material.length).toBeGreaterThan(2);
    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(0);
    for (const m of material) {
      expect(text).not.toContain(m);
      expect(chosen.body).not.toContain(m);
    }
    expect(text).not.toMatch(/PRIVATE KEY|"d":"/);
  });

  it('is not in the error body or the log when the sealed key cannot be opened', async () => {
    const rotated = await logged.app.inject({ method: 'POST', url: '/api/admin/v1/lti/tool-keys/rotate', headers: { authorization: `Bearer ${h.ctx.config.adminToken}` } });
    expect(rotated.statusCode).toBe(200);
    const { kid } = rotated.json();
    // The key sealed under a secret this process does not hold (an ASSAY_SECRET dropped too early).
    const foreign = createSecretBox(['another-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']).seal('-----BEGIN PRIVATE KEY-----\nnot-a-key\n-----END PRIVATE KEY-----', `lti-tool-key:${kid}`);
    await h.pool.query('UPDATE lti_tool_keys SET private_key_sealed = $2 WHERE kid = $1', [kid, foreign]);
    const before = lines.length;
    const chosen = await chooseTest('teacher-secret-2');
    expect(chosen.statusCode).toBeGreaterThanOrEqual(500);
    const text = lines.slice(before).join('');
    expect(text).toMatch(/"level":50/); // the failure is logged, as an error
    expect(chosen.body).toMatch(/could not|went wrong|error/i);
    for (const m of [...(await keyMaterial()), foreign, foreign.split('.').at(-1)!, 'not-a-key']) {
      expect(chosen.body).not.toContain(m);
      expect(text).not.toContain(m);
    }
    expect(chosen.body).not.toMatch(/PRIVATE KEY|secret box|decrypt/i);
  });
});
