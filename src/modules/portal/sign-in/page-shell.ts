import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_HEADERS, type SafeHtml } from '../../../platform/web/html.js';
import { portalLayout, signedOutLayout, type NavKey } from '../ui/layout.js';

/**
 * Renders a staff page in the portal's frame: with the navigation when
 * someone is signed in, the signed-out frame otherwise; strict page headers.
 */
export function sendPage(request: FastifyRequest, reply: FastifyReply, p: { title: string; main: SafeHtml; status?: number; current?: NavKey | null }) {
  const body = request.staff
    ? portalLayout({ title: p.title, principal: request.staff, current: p.current ?? null, main: p.main })
    : signedOutLayout({ title: p.title, main: p.main });
  return reply.code(p.status ?? 200).headers(PAGE_HEADERS).send(body);
}
