import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, errors } from '../../platform/http/schemas.js';
import { operatorTokenAudit } from './audit.js';
import { INSTITUTION_ROLES, STAFF_ROLES } from './principal.js';
import { inviteStaff, listInstitutionStaff } from './staff-service.js';

const StaffView = Type.Object(
  {
    staffId: Type.String(),
    institutionId: Nullable(Type.String(), { description: 'Always set here: operators have no institution' }),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: StringEnum(STAFF_ROLES),
    createdAt: Timestamp,
    lastSignInAt: NullableTimestamp,
  },
  { title: 'Staff' },
);
const InstitutionParams = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });

/** Operator API: invite an institution's staff (the invitation mail carries a sign-in link) and list them. */
export const staffAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/institutions/:institutionId/staff',
    {
      schema: {
        tags: ['Staff'],
        operationId: 'inviteStaff',
        summary: 'Invite a staff member: creates the account and emails them a sign-in link',
        params: InstitutionParams,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254 }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            role: StringEnum(INSTITUTION_ROLES, { description: 'admin: everything of the institution; author: writes the institution\'s own tests; reviewer: marking and proctoring review; viewer: read-only' }),
          },
          { additionalProperties: false },
        ),
        response: { 201: StaffView, ...errors(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await inviteStaff(ctx, { institutionId: request.params.institutionId, ...request.body }, operatorTokenAudit(request.ip));
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/institutions/:institutionId/staff',
    { schema: { tags: ['Staff'], operationId: 'listStaff', summary: "List an institution's staff", params: InstitutionParams, response: { 200: Type.Object({ data: Type.Array(StaffView) }), ...errors(401, 404) } } },
    async (request) => ({ data: await listInstitutionStaff(ctx.pool, request.params.institutionId) }),
  );
};
