import type { FastifyReply } from 'fastify';
import type { AssignmentView, PartnerView } from './get-assignment.js';

const NO_METADATA = Object.freeze({});

/**
 * Sends an assignment view as the route's 200: serialised through the 200
 * schema with an empty metadata object, which is then replaced by the
 * metadata's own text (an object would lose the partner's key order). Every
 * value before `metadata` is an escaped string, a number or a literal, so the
 * first `"metadata":{}` in the text is the member itself. The view is the
 * request's own, made for this answer: its metadata is set in place rather
 * than the view copied (the serialiser writes the schema's members only, so
 * `metadataJson` beside them is not written).
 */
export function sendAssignmentView(reply: FastifyReply, view: PartnerView) {
  const serialize = reply.getSerializationFunction('200') as unknown as (v: AssignmentView) => string;
  (view as { metadata: unknown }).metadata = NO_METADATA;
  const body = serialize(view as unknown as AssignmentView).replace('"metadata":{}', () => `"metadata":${view.metadataJson}`);
  return reply.type('application/json; charset=utf-8').send(body as never);
}
