import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { errors } from '../../../platform/http/schemas.js';
import { finishPasskeyRegistration, finishPasskeySignIn, startPasskeyRegistration, startPasskeySignIn } from '../../staff/passkeys.js';
import { PORTAL_COOKIE } from '../../staff/portal-sessions.js';
import { portalCookieOptions } from '../portal-session.js';
import { requireStaff, safeNextPath } from '../../staff/principal.js';
import { takeIpAttempt } from '../../staff/sign-in-throttle.js';

/**
 * The JSON side of passkeys, called by /portal/assets/passkeys.js with the
 * form token in X-CSRF-Token. Errors are the API's envelope (`config.json`).
 */
const json = { json: true } as const;
const hide = true;
const Options = Type.Object({}, { additionalProperties: true });
const b64url = Type.String({ maxLength: 4096, pattern: '^[A-Za-z0-9_-]*$' });
const Credential = <T extends TSchema>(response: T) =>
  Type.Object({
    id: b64url,
    rawId: b64url,
    type: Type.Literal('public-key'),
    response,
    clientExtensionResults: Type.Object({}, { additionalProperties: true }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 40 })),
  });
const RegistrationCredential = Credential(
  Type.Object({ clientDataJSON: b64url, attestationObject: b64url, transports: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })) }),
);
const AuthenticationCredential = Credential(
  Type.Object({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: Type.Optional(b64url) }),
);

export const passkeyRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext; base: string }> = async (app, { ctx, base }) => {
  app.post(
    `${base}/account/passkeys/options`,
    { config: json, schema: { hide, response: { 200: Options, ...errors(401, 403, 409) } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return startPasskeyRegistration(ctx, requireStaff(request));
    },
  );

  app.post(
    `${base}/account/passkeys`,
    {
      config: json,
      schema: {
        hide,
        body: Type.Object({ name: Type.String({ maxLength: 100 }), response: RegistrationCredential }),
        response: { 201: Type.Object({ credentialId: Type.String(), name: Type.String() }), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const p = requireStaff(request);
      const audit = { actor: { kind: 'staff' as const, staffId: p.staffId, email: p.email }, ip: request.ip };
      const added = await finishPasskeyRegistration(ctx, p, { name: request.body.name, response: request.body.response as RegistrationResponseJSON }, audit);
      return reply.code(201).send({ credentialId: added.credentialId, name: added.name });
    },
  );

  app.post(
    `${base}/sign-in/passkey/options`,
    { config: json, schema: { hide, response: { 200: Options, ...errors(403, 429) } } },
    async (request, reply) => {
      // Each call stores a challenge: limited per IP like link requests.
      const limit = await takeIpAttempt(ctx.pool, { ip: request.ip, now: ctx.clock.now(), kind: 'passkey' });
      if (!limit.allowed) {
        throw new AppError('rate_limited', 'Too many sign-in attempts from this network. Wait a few minutes.', undefined, { 'Retry-After': String(limit.retryAfterSeconds) });
      }
      reply.header('cache-control', 'no-store');
      return startPasskeySignIn(ctx);
    },
  );

  app.post(
    `${base}/sign-in/passkey`,
    {
      config: json,
      schema: {
        hide,
        body: Type.Object({ response: AuthenticationCredential, next: Type.Optional(Type.String({ maxLength: 2000 })) }),
        response: { 200: Type.Object({ redirect: Type.String() }), ...errors(400, 403) },
      },
    },
    async (request, reply) => {
      const result = await finishPasskeySignIn(ctx, request.body.response as AuthenticationResponseJSON, request.ip, request.cookies?.[PORTAL_COOKIE]);
      if (!result) {
        throw new AppError('invalid_request', 'This passkey was not accepted. Sign in with an emailed link instead.', [{ field: 'response', message: 'was not accepted' }]);
      }
      reply.setCookie(PORTAL_COOKIE, result.sessionId, portalCookieOptions(ctx));
      return { redirect: safeNextPath(request.body.next) ?? '/portal' };
    },
  );
};
