import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../platform/errors.js';
import { assetRoute, loadAsset, loadAssetBundle } from '../../platform/web/asset-route.js';
import { questionTypeScripts, questionTypeStyles } from '../catalog/question-types/registry.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { portalSession } from './portal-session.js';
import { staffPages } from './sign-in/staff-pages.js';
import { apiKeyPages } from './api-keys/api-key-pages.js';
import { assignmentPages } from './assignments/assignment-pages.js';
import { answerFilePages } from './assignments/answer-file-pages.js';
import { resultsExportPage } from './assignments/results-export.js';
import { assignmentControlPages } from './assignments/assignment-control-pages.js';
import { auditPages } from './audit/audit-pages.js';
import { callbackDomainPages } from './callback-domains/callback-domain-pages.js';
import { institutionPages } from './institutions/institution-pages.js';
import { markingPages } from './marking/marking-pages.js';
import { proctoringPages } from './proctoring/proctoring-pages.js';
import { overviewPages } from './overview/overview-pages.js';
import { staffAdminPages } from './staff/staff-admin-pages.js';
import { testPages } from './authoring/test-pages.js';
import { authoringApi } from './authoring/authoring-api.js';
import { authoringAssets } from './authoring/authoring-assets.js';
import { editorPages } from './authoring/editor-pages.js';
import { draftPreviewPage } from './authoring/draft-preview.js';
import { tryItRoute } from './authoring/try-it.js';
import { statisticsPages } from './statistics/statistics-pages.js';
import { importPages } from './authoring/import-pages.js';
import { exportPages } from './authoring/export-pages.js';
import { contentAssetPages } from './content-assets/content-asset-routes.js';
import { webhookPages } from './webhooks/webhook-pages.js';
import { ltiPlatformPages } from './lti/lti-platform-pages.js';

/**
 * The institution portal at /portal: its assets, then a scope with the
 * portal session (cookies, forms, CSRF, error pages) holding the staff
 * pages (sign-in, account) and every page group. `GET /` sends a browser
 * to the portal; API clients keep the JSON 404 they always got there.
 */
const ASSETS = [
  { file: 'portal.css', asset: loadAsset(new URL('./ui/assets/portal.css', import.meta.url), 'text/css; charset=utf-8') },
  { file: 'portal.js', asset: loadAsset(new URL('./ui/assets/portal.js', import.meta.url), 'text/javascript; charset=utf-8') },
  ...['editor-kit.js', 'editor-questions.js', 'editor-passages.js', 'editor-form.js', 'editor-translations.js', 'editor-tab.js', 'test-editor.js'].map((file) => ({
    file,
    asset: loadAsset(new URL(`./ui/assets/${file}`, import.meta.url), 'text/javascript; charset=utf-8'),
  })),
  { file: 'editor-problems.js', asset: loadAsset(new URL('./ui/assets/editor-problems.js', import.meta.url), 'text/javascript; charset=utf-8') },
  { file: 'editor-parameters.js', asset: loadAsset(new URL('../catalog/question-types/parameters/assets/editor-parameters.js', import.meta.url), 'text/javascript; charset=utf-8') },
  { file: 'proctoring-timeline.js', asset: loadAsset(new URL('./ui/assets/proctoring-timeline.js', import.meta.url), 'text/javascript; charset=utf-8') },
  // The registered question types' editor parts (each registers itself with window.AssayEditorTypes), as one file.
  { file: 'question-type-editors.js', asset: loadAssetBundle(questionTypeScripts('editor'), 'text/javascript; charset=utf-8') },
  // Their styles for the staff's answer views and the editor, as one sheet.
  { file: 'question-types.css', asset: loadAssetBundle(questionTypeStyles('portal'), 'text/css; charset=utf-8') },
];

export const portalRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  // Outside the session scope: a stylesheet needs no session lookup.
  for (const { file, asset } of ASSETS) assetRoute(app, `/portal/assets/${file}`, asset);

  app.get('/', { schema: { hide: true, response: { 303: Type.Null() } } }, async (request, reply) => {
    if (/\btext\/html\b/.test(request.headers.accept ?? '')) {
      return reply.code(303).header('location', '/portal').header('cache-control', 'no-store').send(null);
    }
    throw new AppError('not_found', 'No route GET /.');
  });

  await app.register(
    async (portal) => {
      await portal.register(portalSession, { ctx });
      await portal.register(staffPages, { ctx });
      await portal.register(overviewPages, { ctx });
      await portal.register(resultsExportPage, { ctx });
      await portal.register(assignmentPages, { ctx });
      await portal.register(answerFilePages, { ctx });
      await portal.register(assignmentControlPages, { ctx });
      await portal.register(proctoringPages, { ctx });
      await portal.register(markingPages, { ctx });
      await portal.register(apiKeyPages, { ctx });
      await portal.register(callbackDomainPages, { ctx });
      await portal.register(webhookPages, { ctx });
      await portal.register(ltiPlatformPages, { ctx });
      await portal.register(staffAdminPages, { ctx });
      await portal.register(auditPages, { ctx });
      await portal.register(institutionPages, { ctx });
      await portal.register(testPages, { ctx });
      await portal.register(authoringApi, { ctx });
      await portal.register(authoringAssets, { ctx });
      await portal.register(editorPages, { ctx });
      await portal.register(draftPreviewPage, { ctx });
      await portal.register(tryItRoute, { ctx });
      await portal.register(statisticsPages, { ctx });
      await portal.register(importPages, { ctx });
      await portal.register(exportPages, { ctx });
      await portal.register(contentAssetPages, { ctx });
    },
    { prefix: '/portal' },
  );
};
