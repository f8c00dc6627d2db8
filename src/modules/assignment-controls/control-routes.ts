import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { cancelAssignment } from './cancel-assignment.js';
import type { Principal } from '../../platform/principal.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { AssignmentParams, UpdateAssignmentBody } from './control-schemas.js';
import type { AssignmentView as View } from '../assignments/get-assignment.js';
import { reissueStartLink } from './reissue-start-link.js';
import { AssignmentView, IdempotencyHeaders } from '../assignments/schemas.js';
import { updateAssignment, type UpdateResult } from './update-assignment.js';
import { withControlAudit } from './control-audit.js';
import type { AuditContext } from '../staff/audit.js';

const tags = ['Assignments'];

/**
 * The assignment controls: change dueAt and accommodations, cancel, reissue
 * the start link. The same routes serve partners (their own institution's
 * assignments) and operators (any institution); only the scope differs.
 */
type Req = Parameters<typeof partnerOf>[0];

function controlRoutes(scopeOf: (request: Req) => Principal, operationPrefix: string, auditOf: (request: Req) => AuditContext | undefined = () => undefined) {
  const id = (name: string) => (operationPrefix ? `${operationPrefix}${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  const plugin: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
    app.patch(
      '/assignments/:assignmentId',
      {
        schema: {
          tags,
          operationId: id('updateAssignment'),
          summary: 'Change dueAt and/or accommodations of an assigned or started assignment',
          description:
            'Extra time applies at once to an attempt in progress: its deadline and the automatic submission move, and the open test page shows the new time within seconds. ' +
            'A new dueAt must be in the future. Refused with 409 invalid_state once the assignment is submitted, marking, completed, expired or cancelled. ' +
            'Each change emits `assignment.updated` with `data.changes`. `Idempotency-Key` works as on creation (200 replayed with `Idempotent-Replayed: true`).',
          params: AssignmentParams,
          headers: IdempotencyHeaders,
          body: UpdateAssignmentBody,
          response: { 200: AssignmentView, ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const serialize = reply.getSerializationFunction('200') as unknown as (v: View) => string;
        const { assignmentId } = request.params;
        const result = await withControlAudit<UpdateResult>(
          ctx,
          auditOf(request),
          { action: 'assignment.updated', assignmentId, details: (r) => (r.replayed ? null : { changes: request.body }) },
          (c) => updateAssignment(c, { scope: scopeOf(request), assignmentId, body: request.body, idempotencyKey: request.headers['idempotency-key'], serialize }),
        );
        if (result.replayed) reply.header('Idempotent-Replayed', 'true');
        // Already serialised through the 200 schema (and stored for replay): send the bytes as they are.
        return sendSerialized(reply, result.body);
      },
    );

    app.post(
      '/assignments/:assignmentId/cancel',
      {
        schema: {
          tags,
          operationId: id('cancelAssignment'),
          summary: 'Withdraw an assigned or started assignment (status cancelled)',
          description:
            'A student in the middle of the test is stopped: the open page says the test was withdrawn, further saves are refused, and the answers saved so far are kept. ' +
            'The start link stops working. Emits `assignment.cancelled`. Cancelling again answers 200 with the same assignment and emits nothing; ' +
            'a submitted, marking, completed or expired assignment is 409 invalid_state.',
          params: AssignmentParams,
          response: { 200: AssignmentView, ...errors(401, 403, 404, 409, 429, 500, 503) },
        },
      },
      async (request) => {
        const { assignmentId } = request.params;
        return withControlAudit(ctx, auditOf(request), { action: 'assignment.cancelled', assignmentId }, (c) => cancelAssignment(c, scopeOf(request), assignmentId));
      },
    );

    app.post(
      '/assignments/:assignmentId/start-link',
      {
        schema: {
          tags,
          operationId: id('reissueStartLink'),
          summary: 'Revoke the start link and issue a new one (startUrl in the answer)',
          description:
            'For a link sent to the wrong person: every link issued before opens a "link not valid" page, and student sessions opened with an earlier link are ended ' +
            '(the student opens the new link and resumes with their answers and time). Only while assigned or started; 409 invalid_state otherwise.',
          params: AssignmentParams,
          response: { 200: AssignmentView, ...errors(401, 403, 404, 409, 429, 500, 503) },
        },
      },
      async (request) => {
        const { assignmentId } = request.params;
        return withControlAudit(ctx, auditOf(request), { action: 'assignment.start_link_reissued', assignmentId }, (c) => reissueStartLink(c, scopeOf(request), assignmentId));
      },
    );
  };
  return plugin;
}

function sendSerialized(reply: FastifyReply, body: string) {
  return reply.code(200).type('application/json; charset=utf-8').send(body as never);
}

export const assignmentControlsPartnerRoutes = controlRoutes(partnerOf, '');
export const assignmentControlsAdminRoutes = controlRoutes(
  () => ({ kind: 'operator' }),
  'operator',
  (request) => ({ actor: { kind: 'operator_token' }, ip: request.ip }),
);
