import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type JSONWebKeySet, type JWTPayload } from 'jose';

/**
 * A small LTI 1.3 platform for the tests: its own RS256 key set (served at
 * /jwks, counting fetches), an OIDC authorisation endpoint (/auth) that
 * answers the tool's login redirect with the id_token form the browser would
 * post, a token endpoint (/token) that checks the tool's JWT assertion
 * against the tool's /lti/jwks, and a line item's score service that records
 * what it receives and can be told to fail first; a course page that frames
 * a launch, with the platform's storage frame beside it (LTI Client Side
 * postMessages) when asked.
 */
export const ISSUER = 'https://lms.example.edu';
export const CLIENT_ID = 'assay-client-1';
export const DEPLOYMENT_ID = 'deployment-1';
export const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
export const INSTRUCTOR = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor';
export const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner';
/** The name of the platform's storage frame on its course page (the login's lti_storage_target). */
export const STORAGE_TARGET = 'lti_storage';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
export type ScoreAnswer = number | 'drop';

export interface RecordedScore {
  lineItem: string;
  query: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

export interface FakePlatform {
  baseUrl: string;
  /** What the platform's registration endpoint received (Dynamic Registration), and the token it was sent with. */
  registrations: Array<{ authorization: string | undefined; body: Record<string, any> }>;
  /** The JWTs posted back to /deep-link-return. */
  deepLinkAnswers: string[];
  jwksFetches: number;
  tokenRequests: number;
  scores: RecordedScore[];
  /** Answers of the score service, used in order; 200 when the list is empty. */
  scoreAnswers: ScoreAnswer[];
  /** The claims /auth puts in the id_token of a login, by login_hint (overrides of the defaults). */
  launches: Map<string, Record<string, unknown>>;
  registration: { issuer: string; clientId: string; deploymentIds: string[]; authLoginUrl: string; authTokenUrl: string; jwksUrl: string };
  kid: string;
  /** Signs anything with the platform's key (or another key given), for the refused-launch tests. */
  sign(payload: JWTPayload, opts?: { kid?: string; key?: Key; alg?: string }): Promise<string>;
  /** Adds a key to the published set (a rotation), returning it. */
  rotate(): Promise<{ kid: string; key: Key }>;
  publicJwk: JWK;
  /** What the storage frame received (subject, sender origin, key; never the value). */
  storageMessages: Array<{ subject: string; origin: string; key?: string }>;
  lineItemUrl(id: string): string;
  close(): Promise<void>;
}

export async function startFakePlatform(opts: {
  toolJwks: () => Promise<JSONWebKeySet>;
  now?: () => Date;
  /** 'self': the platform's own base URL is its issuer (as a dynamically registered platform's must be). */
  issuer?: 'self';
}): Promise<FakePlatform> {
  const now = opts.now ?? (() => new Date());
  const first = await generateKeyPair('RS256', { extractable: true });
  const kid = 'platform-key-1';
  const publicJwk = { ...(await exportJWK(first.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const keys: JWK[] = [publicJwk];
  const app: FastifyInstance = Fastify({ logger: false });
  await app.register(formbody);

  const platform = {
    baseUrl: '',
    jwksFetches: 0,
    tokenRequests: 0,
    scores: [] as RecordedScore[],
    scoreAnswers: [] as ScoreAnswer[],
    registrations: [] as FakePlatform['registrations'],
    deepLinkAnswers: [] as string[],
    launches: new Map<string, Record<string, unknown>>(),
    storageMessages: [] as FakePlatform['storageMessages'],
    kid,
    publicJwk,
  } as FakePlatform;
  const tokens = new Set<string>();

  platform.sign = (payload, o = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? kid, typ: 'JWT' })
      .sign(o.key ?? first.privateKey);
  platform.rotate = async () => {
    const next = await generateKeyPair('RS256', { extractable: true });
    const nextKid = `platform-key-${keys.length + 1}`;
    keys.push({ ...(await exportJWK(next.publicKey)), kid: nextKid, alg: 'RS256', use: 'sig' });
    return { kid: nextKid, key: next.privateKey };
  };

  app.get('/jwks', async () => {
    platform.jwksFetches++;
    return { keys };
  });

  // The authorisation endpoint: what the platform answers the browser the tool redirected (form_post of id_token and state).
  app.get('/auth', async (request, reply) => {
    const q = request.query as Record<string, string>;
    if (q.client_id !== CLIENT_ID || q.response_type !== 'id_token' || q.response_mode !== 'form_post' || q.scope !== 'openid') {
      return reply.code(400).send({ error: 'invalid_request' });
    }
    const claims = platform.launches.get(q.login_hint!) ?? {};
    const t = Math.floor(now().getTime() / 1000);
    const idToken = await platform.sign({
      iss: platform.registration.issuer,
      aud: CLIENT_ID,
      sub: q.login_hint,
      iat: t,
      exp: t + 300,
      nonce: q.nonce,
      name: 'Lee Learner',
      email: 'lee@lms.example.edu',
      [`${LTI}message_type`]: 'LtiResourceLinkRequest',
      [`${LTI}version`]: '1.3.0',
      [`${LTI}deployment_id`]: DEPLOYMENT_ID,
      [`${LTI}target_link_uri`]: q.redirect_uri,
      [`${LTI}roles`]: [LEARNER],
      ...claims,
    });
    // As a platform's page does: the form posts itself (the tests without a browser read the fields instead).
    const html = `<!doctype html><html lang="en"><title>LMS</title><form method="post" action="${q.redirect_uri}"><input type="hidden" name="id_token" value="${idToken}"><input type="hidden" name="state" value="${q.state}"></form><script>document.forms[0].submit()</script></html>`;
    return reply.type('text/html').send(html);
  });

  app.get('/.well-known/openid-configuration', async () => ({
    issuer: platform.registration.issuer,
    authorization_endpoint: `${platform.baseUrl}/auth`,
    token_endpoint: `${platform.baseUrl}/token`,
    jwks_uri: `${platform.baseUrl}/jwks`,
    registration_endpoint: `${platform.baseUrl}/register`,
    scopes_supported: ['openid', 'https://purl.imsglobal.org/spec/lti-ags/scope/score'],
    response_types_supported: ['id_token'],
    id_token_signing_alg_values_supported: ['RS256'],
    'https://purl.imsglobal.org/spec/lti-platform-configuration': { product_family_code: 'fake', version: '1.0', messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }] },
  }));

  app.post('/register', async (request, reply) => {
    if (request.headers.authorization !== 'Bearer reg-token-1') return reply.code(401).send({ error: 'invalid_token' });
    platform.registrations.push({ authorization: request.headers.authorization, body: request.body as Record<string, any> });
    return reply.code(200).send({
      ...(request.body as object),
      client_id: CLIENT_ID,
      'https://purl.imsglobal.org/spec/lti-tool-configuration': { ...(request.body as Record<string, any>)['https://purl.imsglobal.org/spec/lti-tool-configuration'], deployment_id: DEPLOYMENT_ID },
    });
  });

  // A course page showing a launch in a frame, as a platform does for an activity placed "in the page";
  // with `storage=1`, beside it the platform's storage frame (named STORAGE_TARGET) the tool may use.
  app.get('/course', async (request, reply) => {
    const { src = '', storage } = request.query as { src?: string; storage?: string };
    const safe = src.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    const store = storage ? `<iframe name="${STORAGE_TARGET}" title="Platform storage" src="/storage" hidden></iframe>` : '';
    return reply.type('text/html').send(`<!doctype html><html lang="en"><title>Course</title><h1>Biology 101</h1>${store}<iframe title="Assay activity" src="${safe}" style="width:100%;height:500px;border:0"></iframe></html>`);
  });

  // The platform's storage frame (LTI Client Side postMessages): lti.put_data and lti.get_data kept per
  // sender origin, in this page's memory (the course page stays while the tool's frame navigates).
  app.get('/storage', async (_request, reply) => {
    return reply.type('text/html').send(`<!doctype html><html lang="en"><title>Storage</title><script>
const kept = new Map();
window.addEventListener('message', (event) => {
  const d = event.data;
  if (typeof d !== 'object' || d === null || typeof d.subject !== 'string') return;
  fetch('/storage-log', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subject: d.subject, origin: event.origin, key: d.key }) });
  const reply = (m) => event.source.postMessage({ ...m, message_id: d.message_id }, event.origin);
  if (d.subject === 'lti.capabilities') reply({ subject: 'lti.capabilities.response', supported_messages: [{ subject: 'lti.put_data' }, { subject: 'lti.get_data' }] });
  else if (d.subject === 'lti.put_data') { kept.set(event.origin + ' ' + d.key, d.value); reply({ subject: 'lti.put_data.response', key: d.key, value: d.value }); }
  else if (d.subject === 'lti.get_data') {
    const k = event.origin + ' ' + d.key;
    reply(kept.has(k) ? { subject: 'lti.get_data.response', key: d.key, value: kept.get(k) } : { subject: 'lti.get_data.response', key: d.key, error: { code: 'bad_request', message: 'no such key' } });
  }
});
</script></html>`);
  });
  app.post('/storage-log', async (request) => {
    platform.storageMessages.push(request.body as FakePlatform['storageMessages'][number]);
    return {};
  });

  // Where a deep-linking answer comes back to: keeps the JWT and shows a page.
  app.post('/deep-link-return', async (request, reply) => {
    platform.deepLinkAnswers.push((request.body as Record<string, string>).JWT ?? '');
    return reply.type('text/html').send('<!doctype html><html lang="en"><title>LMS</title><h1>Back in the course</h1></html>');
  });

  app.post('/token', async (request, reply) => {
    platform.tokenRequests++;
    const body = request.body as Record<string, string>;
    if (body.grant_type !== 'client_credentials' || body.client_assertion_type !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
      return reply.code(400).send({ error: 'invalid_request' });
    }
    try {
      await jwtVerify(body.client_assertion!, createLocalJWKSet(await opts.toolJwks()), {
        algorithms: ['RS256'],
        issuer: CLIENT_ID,
        subject: CLIENT_ID,
        audience: `${platform.baseUrl}/token`,
        currentDate: now(),
      });
    } catch {
      return reply.code(401).send({ error: 'invalid_client' });
    }
    const token = `tok-${tokens.size + 1}`;
    tokens.add(token);
    return { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: body.scope };
  });

  app.addContentTypeParser('application/vnd.ims.lis.v1.score+json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.post('/lineitems/:id/scores', async (request, reply) => {
    const answer = platform.scoreAnswers.shift() ?? 200;
    if (answer === 'drop') {
      request.raw.socket.destroy();
      return reply;
    }
    if (!tokens.has((request.headers.authorization ?? '').replace(/^Bearer /, ''))) return reply.code(401).send({ error: 'unauthorized' });
    if (answer !== 200) return reply.code(answer).send({ error: 'server_error' });
    platform.scores.push({
      lineItem: (request.params as { id: string }).id,
      query: new URL(request.url, 'http://x').search,
      contentType: request.headers['content-type'],
      body: request.body as Record<string, unknown>,
    });
    return reply.code(200).send({});
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  platform.baseUrl = `http://127.0.0.1:${port}`;
  platform.registration = {
    issuer: opts.issuer === 'self' ? platform.baseUrl : ISSUER,
    clientId: CLIENT_ID,
    deploymentIds: [DEPLOYMENT_ID],
    authLoginUrl: `${platform.baseUrl}/auth`,
    authTokenUrl: `${platform.baseUrl}/token`,
    jwksUrl: `${platform.baseUrl}/jwks`,
  };
  platform.lineItemUrl = (id) => `${platform.baseUrl}/lineitems/${id}?course=c1`;
  platform.close = () => app.close();
  return platform;
}
