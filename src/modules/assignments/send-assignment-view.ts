import type { FastifyReply } from 'fastify';
import type { AssignmentView, PartnerView } from './get-assignment.js';

/**
 * Sends an assignment view as the route's 200: serialised through the 200
 * schema with an empty metadata object, which is then replaced by the
 * metadata's own text (an object would lose the partner's key order). Every
 * value before `metadata` is an escaped string, a number or a literal, so the
 * first `"metadata":{}` in the text is the member itself.
 */
export function sendAssignmentView(reply: FastifyReply, { metadataJson, ...view }: PartnerView) {
  const serialize = reply.getSerializationFunction('200') as unknown as (v: AssignmentView) => string;
  const body = serialize({ ...view, metadata: {} }).replace('"metadata":{}', () => `"metadata":${metadataJson}`);
  return reply.type('application/json; charset=utf-8').send(body as never);
}
