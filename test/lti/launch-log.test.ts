import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from 'jose';
import { freezeConfig } from '../../src/platform/config.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, registerPlatform, resourceLinkClaims } from '../helpers/lti.js';

/** A refused launch says why in the log, and nothing there works as a credential. */
let h: Harness;
let logged: Harness;
let platform: FakePlatform;
const lines: string[] = [];

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true } });
  const config = freezeConfig({ ...h.ctx.config, logLevel: 'info' });
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

describe('the log of a refused launch', () => {
  it('names the reason, and holds neither the id_token, the state, the nonce nor the login hints', async () => {
    const b = new LtiBrowser(logged);
    const { state, nonce } = await b.authorize(platform, 'hint-secret-1', {});
    const other = await generateKeyPair('RS256');
    const t = Math.floor(Date.now() / 1000);
    const idToken = await platform.sign(
      {
        iss: platform.registration.issuer, aud: platform.registration.clientId, sub: 'u', iat: t, exp: t + 300, nonce,
        'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
        'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
        'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'deployment-1',
        ...resourceLinkClaims(h.a.testId),
      },
      { key: other.privateKey },
    );
    const res = await b.postForm('/lti/launch', { id_token: idToken, state });
    expect(res.statusCode).toBe(401);
    const text = lines.join('');
    expect(text).toContain('LTI launch refused');
    expect(text).toMatch(/signature verification failed/);
    for (const secret of [idToken, idToken.split('.')[2]!, state, nonce, 'hint-secret-1', b.cookies.values().next().value!]) expect(text).not.toContain(secret);
  });
});
