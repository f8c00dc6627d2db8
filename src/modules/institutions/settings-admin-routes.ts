import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { errors } from '../../platform/http/schemas.js';
import { getInstitutionSettings, updateInstitutionSettings } from './institution-settings.js';

const Params = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });
const SettingsView = Type.Object(
  {
    allowProctoringRelaxations: Type.Boolean({
      description: "Whether the institution's partners may relax proctoring per assignment (accommodations.proctoring)",
    }),
    reportShowsQuestions: Type.Boolean({
      description: "Whether a candidate's report (result.reportUrl) lists each question's outcome: points awarded of the question's points",
    }),
  },
  { title: 'InstitutionSettings' },
);

/** Operator switches of one institution. */
export const institutionSettingsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/institutions/:institutionId/settings',
    {
      schema: {
        tags: ['Institutions'],
        operationId: 'getInstitutionSettings',
        summary: "Read an institution's settings",
        params: Params,
        response: { 200: SettingsView, ...errors(401, 404) },
      },
    },
    async (request) => {
      const settings = await getInstitutionSettings(ctx.pool, request.params.institutionId);
      if (!settings) throw notFound('institution');
      return settings;
    },
  );

  app.patch(
    '/institutions/:institutionId/settings',
    {
      schema: {
        tags: ['Institutions'],
        operationId: 'updateInstitutionSettings',
        summary: "Change an institution's settings (fields not given stay as they are)",
        params: Params,
        body: Type.Object({ allowProctoringRelaxations: Type.Optional(Type.Boolean()), reportShowsQuestions: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: SettingsView, ...errors(400, 401, 404, 415) },
      },
    },
    async (request) => {
      const settings = await updateInstitutionSettings(ctx.pool, request.params.institutionId, request.body);
      if (!settings) throw notFound('institution');
      return settings;
    },
  );
};
