import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { changeDeployments, checkPlatformUrls, getPlatform, listInstitutionPlatforms, registerPlatform, removePlatform } from '../../lti/platforms.js';
import { createRegistrationInvite } from '../../lti/dynamic-registration.js';
import { toolUrls } from '../../lti/lti-context.js';
import { refusedScores } from '../../lti/score-log.js';
import {
  CsrfBody,
  DoneQuery,
  FORM,
  Html,
  InstitutionQuery,
  Redirect,
  auditContext,
  flashFrom,
  formErrors,
  institutionPage,
  institutionScope,
  pageRoute,
  redirect,
  sendHtml,
  type Scope,
} from '../ui/page.js';
import { EMPTY_FORM, platformPage, platformsPage, type PlatformForm } from './lti-platform-views.js';
import { portalTranslator } from '../ui/portal-text.js';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';

/**
 * LTI platforms (docs/lti.md): an institution's admins (and operators, for
 * any institution) register the learning platforms that launch Assay, with
 * the same service and rules as the operator API; every change is audited.
 */
const Params = Type.Object({ ltiPlatformId: Type.String({ maxLength: 64 }) });
const Field = Type.Optional(Type.String({ maxLength: 4096 }));

const FIELD_WORDS: Record<keyof PlatformForm, MessageKey> = {
  issuer: 'portal.lti.error.issuer',
  clientId: 'portal.lti.error.clientId',
  deploymentIds: 'portal.lti.error.deploymentIds',
  authLoginUrl: 'portal.lti.error.authLoginUrl',
  authTokenUrl: 'portal.lti.error.authTokenUrl',
  jwksUrl: 'portal.lti.error.jwksUrl',
};

/** Deployment ids as typed: one per line (commas also separate), blanks dropped. */
export function parseDeploymentIds(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function checkDeploymentIds(ids: string[], t: Translator): ErrorDetail[] {
  if (ids.length === 0) return [{ field: 'deploymentIds', message: t.t(FIELD_WORDS.deploymentIds) }];
  if (ids.length > 100) return [{ field: 'deploymentIds', message: t.t('portal.lti.error.tooManyDeploymentIds') }];
  const long = ids.find((d) => d.length > 255);
  return long ? [{ field: 'deploymentIds', message: t.t('portal.lti.error.deploymentIdTooLong') }] : [];
}

function checkForm(form: PlatformForm, t: Translator): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const field of ['issuer', 'clientId'] as const) if (!form[field]) errors.push({ field, message: t.t(FIELD_WORDS[field]) });
  if (form.clientId.length > 255) errors.push({ field: 'clientId', message: t.t('portal.lti.error.clientIdTooLong') });
  errors.push(...checkDeploymentIds(parseDeploymentIds(form.deploymentIds), t));
  for (const field of ['authLoginUrl', 'authTokenUrl', 'jwksUrl'] as const) {
    if (!form[field]) errors.push({ field, message: t.t(FIELD_WORDS[field]) });
    else if (form[field].length > 2048) errors.push({ field, message: t.t('portal.lti.error.urlTooLong') });
  }
  if (form.issuer.length > 2048) errors.push({ field: 'issuer', message: t.t('portal.lti.error.issuerTooLong') });
  return errors;
}

async function listPage(ctx: AppContext, scope: Scope, p: Omit<Parameters<typeof platformsPage>[1], 'platforms' | 'tool' | 'refused'>): Promise<string> {
  const platforms = await listInstitutionPlatforms(ctx, scope.institutionId);
  const refused = new Map<string, number>();
  for (const pl of platforms) refused.set(pl.ltiPlatformId, (await refusedScores(ctx.pool, scope.institutionId, pl.ltiPlatformId, ctx.clock.now())).length);
  return platformsPage(scope, { ...p, platforms, refused, tool: toolUrls(ctx.config.publicBaseUrl) });
}

export const ltiPlatformPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.lti');
  institutionPage(app, ctx, { path: '/lti', nav: 'lti', title, permission: 'manage_integration' }, (scope, flash) => listPage(ctx, scope, { flash }));

  app.post(
    '/lti',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({ ...CsrfBody, issuer: Field, clientId: Field, deploymentIds: Type.Optional(Type.String({ maxLength: 30000 })), authLoginUrl: Field, authTokenUrl: Field, jwksUrl: Field }),
        response: { 303: Redirect, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const b = request.body;
      const form: PlatformForm = { ...EMPTY_FORM };
      for (const k of Object.keys(EMPTY_FORM) as Array<keyof PlatformForm>) form[k] = (b[k] ?? '').trim();
      // Every problem at once, each at its field: what is missing or too long, then what is wrong with the URLs typed.
      let errors = checkForm(form, scope.t);
      const typed = Object.fromEntries((['issuer', 'authLoginUrl', 'authTokenUrl', 'jwksUrl'] as const).filter((f) => form[f] && !errors.some((e) => e.field === f)).map((f) => [f, form[f]]));
      const label: Record<string, MessageKey> = { issuer: 'portal.lti.issuer', authLoginUrl: 'portal.lti.authLoginUrl', authTokenUrl: 'portal.lti.authTokenUrl', jwksUrl: 'portal.lti.jwksUrl' };
      errors.push(...checkPlatformUrls(ctx, typed).map((d) => ({ field: d.field, message: scope.t.t('portal.lti.error.url', { field: scope.t.t(label[d.field]!), problem: d.message }) })));
      if (errors.length === 0) {
        try {
          const input = { issuer: form.issuer, clientId: form.clientId, deploymentIds: parseDeploymentIds(form.deploymentIds), authLoginUrl: form.authLoginUrl, authTokenUrl: form.authTokenUrl, jwksUrl: form.jwksUrl };
          const view = await registerPlatform(ctx, scope.institutionId, input, auditContext(request));
          return redirect(reply, scope.link(`/portal/lti/${view.ltiPlatformId}`, { done: 'lti-registered' }));
        } catch (err) {
          errors = formErrors(err, 'issuer');
        }
      }
      return sendHtml(reply, await listPage(ctx, scope, { errors, form }), 400);
    },
  );

  app.post(
    '/lti/registration-url',
    { schema: { ...pageRoute, consumes: FORM, body: Type.Object(CsrfBody), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const invite = await createRegistrationInvite(ctx, scope.institutionId, auditContext(request));
      // Shown once, in this answer only: the URL is a one-time credential, so it never travels in a redirect.
      reply.header('cache-control', 'no-store');
      return sendHtml(reply, await listPage(ctx, scope, { invite }));
    },
  );

  app.get(
    '/lti/:ltiPlatformId',
    { schema: { ...pageRoute, params: Params, querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery }), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('LTI platform');
      const platform = await getPlatform(ctx, scope.institutionId, request.params.ltiPlatformId);
      return sendHtml(reply, platformPage(scope, platform, { refused: await refusedScores(ctx.pool, scope.institutionId, platform.ltiPlatformId, ctx.clock.now()), flash: flashFrom(request, scope.t) }));
    },
  );

  app.post(
    '/lti/:ltiPlatformId/deployments',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: Params,
        body: Type.Object({ ...CsrfBody, deploymentIds: Type.Optional(Type.String({ maxLength: 30000 })) }),
        response: { 303: Redirect, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('LTI platform');
      const platform = await getPlatform(ctx, scope.institutionId, request.params.ltiPlatformId);
      const typed = request.body.deploymentIds ?? '';
      const ids = parseDeploymentIds(typed);
      const errors = checkDeploymentIds(ids, scope.t);
      if (errors.length > 0) {
        const refused = await refusedScores(ctx.pool, scope.institutionId, platform.ltiPlatformId, ctx.clock.now());
        return sendHtml(reply, platformPage(scope, platform, { refused, errors, deploymentIds: typed }), 400);
      }
      await changeDeployments(ctx, scope.institutionId, platform.ltiPlatformId, ids, auditContext(request));
      return redirect(reply, scope.link(`/portal/lti/${platform.ltiPlatformId}`, { done: 'lti-deployments-saved' }));
    },
  );

  app.post(
    '/lti/:ltiPlatformId/remove',
    { schema: { ...pageRoute, consumes: FORM, params: Params, body: Type.Object(CsrfBody), response: { 303: Redirect } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('LTI platform');
      await removePlatform(ctx, scope.institutionId, request.params.ltiPlatformId, auditContext(request));
      return redirect(reply, scope.link('/portal/lti', { done: 'lti-removed' }));
    },
  );
};
