import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { RouteOptions } from 'fastify';
import { createHttp, type HttpApp } from './platform/http/create-http.js';
import type { Logger } from './platform/log/log.js';
import { apiOf, documentRouteErrors, openApiDocument } from './platform/http/openapi.js';
import { isOptionalSchema } from './platform/http/validation.js';
import { requestLimits } from './platform/http/rate-limit-requests.js';
import { installMetrics, watchReadReplica } from './platform/telemetry/metrics.js';
import type { AppContext } from './platform/context.js';
import { AppError } from './platform/errors.js';
import { createReadinessProbe } from './platform/readiness.js';
import { createNotificationListener } from './platform/listener.js';
import { sessionConnectionString } from './platform/session-connection.js';
import { dispatchStatusChange, STATUS_CHANNEL } from './modules/lifecycle/status-changes.js';
import { closeWorkerPool, configureWorkerPool } from './platform/worker-pool/shared-pool.js';
import { adminAuth } from './modules/institutions/admin-auth.js';
import { partnerAuth } from './modules/institutions/partner-auth.js';
import { institutionsAdminRoutes } from './modules/institutions/admin-routes.js';
import { testsAdminRoutes } from './modules/catalog/admin-routes.js';
import { authoringAdminRoutes } from './modules/catalog/authoring-routes.js';
import { assetsAdminRoutes } from './modules/catalog/content-assets/asset-admin-routes.js';
import { testsPartnerRoutes } from './modules/catalog/partner-routes.js';
import { interchangeAdminRoutes } from './modules/catalog/interchange/routes.js';
import { assignmentsPartnerRoutes } from './modules/assignments/partner-routes.js';
import { assignmentControlsAdminRoutes, assignmentControlsPartnerRoutes } from './modules/assignment-controls/control-routes.js';
import { institutionSettingsAdminRoutes } from './modules/institutions/settings-admin-routes.js';
import { createLinkSigner, type LinkSigner } from './modules/assignments/start-links.js';
import { eventsPartnerRoutes } from './modules/events/partner-routes.js';
import { installWebhookFanOut } from './modules/webhooks/fan-out.js';
import { webhooksAdminRoutes } from './modules/webhooks/admin-routes.js';
import { webhooksPartnerRoutes } from './modules/webhooks/partner-routes.js';
import { studentRoutes } from './modules/student/student-routes.js';
import { studentContentAssetRoutes } from './modules/student/content-asset-routes.js';
import { proctoringAssets } from './modules/student/proctoring-assets.js';
import { markingAdminRoutes } from './modules/marking/admin-routes.js';
import { proctoringAdminRoutes } from './modules/proctoring/admin-routes.js';
import { proctoringFileRoutes } from './modules/proctoring/file-routes.js';
import { answerFileDownloadRoutes } from './modules/attempts/answer-file-routes.js';
import { proctoringPartnerRoutes } from './modules/proctoring/partner-routes.js';
import { sandboxPartnerRoutes } from './modules/sandbox/partner-routes.js';
import { portalRoutes } from './modules/portal/portal-routes.js';
import { staffAdminRoutes } from './modules/staff/admin-routes.js';
import { ltiAdminRoutes } from './modules/lti/admin-routes.js';
import { ltiRoutes } from './modules/lti/lti-routes.js';
import { installLtiScoreFanOut } from './modules/lti/ags.js';
import { resultsAdminRoutes } from './modules/results/admin-routes.js';
import { reportRoutes } from './modules/results/report-routes.js';

export const PARTNER_PREFIX = '/api/partner/v1';
export const ADMIN_PREFIX = '/api/admin/v1';

/**
 * What the HTTP server runs with: the app's context and the start-link signer
 * that the routes issuing and opening start links need (assignments, the
 * student app, the portal, test mode). Each module's routes ask for their own
 * narrower context, which this satisfies.
 */
export interface ServerContext extends AppContext {
  signer: LinkSigner;
}

export function serverContext(ctx: AppContext): ServerContext {
  if (!ctx.config.secrets) throw new Error('serverContext: ASSAY_SECRET is not set');
  return { ...ctx, signer: createLinkSigner(ctx.config.secrets, ctx.config.publicBaseUrl) };
}

/** Assembles the HTTP app: every route of every module, docs, health. */
export async function buildServer(
  ctx: ServerContext,
  opts: { logger?: false | Logger; logStream?: { write(line: string): void } } = {},
): Promise<HttpApp> {
  // Events appended by this process's requests get their webhook deliveries in the same transaction.
  installWebhookFanOut();
  // …and an LTI assignment's score post, when its launch gave a line item.
  installLtiScoreFanOut();
  const app = createHttp({
    logLevel: ctx.config.logLevel,
    trustProxy: ctx.config.trustProxy,
    ...(ctx.config.requestTime ? { requestTime: ctx.config.requestTime } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.logStream ? { logStream: opts.logStream } : {}),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Title, description and security are each document's own (platform/http/openapi.ts).
      info: { title: 'Assay', version: '1.0.0' },
      servers: [{ url: ctx.config.publicBaseUrl }],
    },
  });
  // Every route documents the error statuses its API and its request parts make possible.
  const prefixes = { partner: PARTNER_PREFIX, admin: ADMIN_PREFIX };
  app.addHook('onRoute', (route) => {
    const kind = apiOf(route.url, prefixes);
    if (kind) documentRouteErrors(route as RouteOptions, kind);
  });
  // Uploaded documents are parsed on the process's worker pool; it stops when the app closes.
  configureWorkerPool(ctx.config.workerPool);
  app.addHook('onClose', () => closeWorkerPool());
  await app.register(requestLimits);
  // Before any route: the request histogram covers every route (nothing at all unless metrics are configured).
  installMetrics(app, ctx.config, ctx.pool);
  watchReadReplica(ctx.reads);

  // Liveness needs nothing but the event loop; readiness asks the database on a connection of its own
  // (platform/readiness.ts), never through the request pool, so a saturated pool takes no instance out.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // On the session URL when the pool goes through a transaction-mode pooler: a pooler queueing every client behind
  // its busy server connections would fail every instance's check at once (docs/production.md "Through PgBouncer").
  const readiness = createReadinessProbe(sessionConnectionString(ctx.pool), { log: app.log });
  app.addHook('onClose', async () => readiness.close());
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const state = await readiness.check();
    return state.status === 'ready' ? state : reply.status(503).header('Retry-After', '5').send(state);
  });

  // One LISTEN connection for the open student pages' status (student/status-streams.ts) and the heartbeat
  // coalescer's cache of open attempts (proctoring/heartbeat-coalescer.ts); with null after each (re)connect.
  const statusListener = createNotificationListener({
    // Named, so an operator can tell it from the pool's connections in pg_stat_activity.
    connection: { connectionString: sessionConnectionString(ctx.pool), application_name: 'assay-status-listener' },
    channel: STATUS_CHANNEL,
    onNotify: (assignmentId) => dispatchStatusChange(assignmentId ?? null),
    log: app.log,
  });
  app.addHook('onReady', () => statusListener.start());
  app.addHook('onClose', () => statusListener.stop());

  app.get(`${PARTNER_PREFIX}/openapi.json`, { schema: { hide: true } }, async () =>
    openApiDocument(app.swagger() as Record<string, any>, 'partner', PARTNER_PREFIX),
  );
  app.get(`${ADMIN_PREFIX}/openapi.json`, { schema: { hide: true } }, async () =>
    openApiDocument(app.swagger() as Record<string, any>, 'admin', ADMIN_PREFIX),
  );
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // BaseLayout: no top bar, whose Swagger logo is an SVG with an inline <style> that the strict CSP (rightly) blocks.
    // The operator API's reference is the same page opened as `/docs?url=/api/admin/v1/openapi.json` (the README and
    // docs/operators.md link it): BaseLayout has no selector of its own.
    uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout', queryConfigEnabled: true } as Record<string, unknown>,
    transformSpecification: (spec) => openApiDocument(spec as Record<string, any>, 'partner', PARTNER_PREFIX),
  });

  // A POST/PUT/PATCH whose route takes a body must say it is JSON: 415 otherwise, even when the body is empty.
  // (A body sent with another type is refused by Fastify's parser with the same 415.)
  app.addHook('preValidation', (request, _reply, done) => {
    // The method and a JSON type first: `request.routeOptions` builds a new object on every read, which a GET or a JSON body need not pay for.
    if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'PATCH') return done();
    if (/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return done();
    const schema = request.routeOptions.schema;
    const bodySchema = schema?.body;
    if (!bodySchema) return done();
    // Routes that take another body declare it in `consumes` and parse it in their own scope: the student pages'
    // HTML forms (application/x-www-form-urlencoded), test import (application/zip, text/csv).
    const consumes = (schema?.consumes as string[] | undefined) ?? [];
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const isDeclared = mediaType !== '' && consumes.includes(mediaType);
    if (!isDeclared && !(request.body === undefined && isOptionalSchema(bodySchema))) {
      const message = consumes.length > 0 ? `Send the body with a Content-Type this route takes: ${consumes.join(', ')}.` : 'Send the body as application/json (Content-Type: application/json).';
      return done(new AppError('unsupported_media_type', message));
    }
    done();
  });

  await app.register(
    async (partner) => {
      await partner.register(partnerAuth, { ctx });
      await partner.register(testsPartnerRoutes, { ctx });
      await partner.register(assignmentsPartnerRoutes, { ctx });
      await partner.register(assignmentControlsPartnerRoutes, { ctx });
      await partner.register(webhooksPartnerRoutes, { ctx });
      await partner.register(eventsPartnerRoutes, { ctx });
      await partner.register(proctoringPartnerRoutes, { ctx });
      await partner.register(sandboxPartnerRoutes, { ctx });
    },
    { prefix: PARTNER_PREFIX },
  );

  await app.register(
    async (admin) => {
      await admin.register(adminAuth, { ctx });
      await admin.register(institutionsAdminRoutes, { ctx });
      await admin.register(testsAdminRoutes, { ctx });
      await admin.register(authoringAdminRoutes, { ctx });
      await admin.register(assetsAdminRoutes, { ctx });
      await admin.register(interchangeAdminRoutes, { ctx });
      await admin.register(markingAdminRoutes, { ctx });
      await admin.register(assignmentControlsAdminRoutes, { ctx });
      await admin.register(institutionSettingsAdminRoutes, { ctx });
      await admin.register(webhooksAdminRoutes, { ctx });
      await admin.register(proctoringAdminRoutes, { ctx });
      await admin.register(staffAdminRoutes, { ctx });
      await admin.register(ltiAdminRoutes, { ctx });
      await admin.register(resultsAdminRoutes, { ctx });
    },
    { prefix: ADMIN_PREFIX },
  );

  await app.register(studentRoutes, { ctx });
  await app.register(studentContentAssetRoutes, { ctx });
  await app.register(ltiRoutes, { ctx });
  await app.register(proctoringAssets);
  await app.register(proctoringFileRoutes, { ctx });
  await app.register(answerFileDownloadRoutes, { ctx });
  await app.register(reportRoutes, { ctx });
  if (ctx.config.operations.portal) await app.register(portalRoutes, { ctx });

  return app;
}
