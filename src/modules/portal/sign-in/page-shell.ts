import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { PAGE_HEADERS, type SafeHtml } from '../../../platform/web/html.js';
import { portalLayout, signedOutLayout, type NavKey } from '../ui/layout.js';

/**
 * Renders a staff page in the portal's frame: with the navigation when
 * someone is signed in, the signed-out frame otherwise; strict page headers.
 */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  p: { title: string; main: SafeHtml; status?: number; current?: NavKey | null; t?: Translator },
) {
  const body = request.staff
    ? portalLayout({ title: p.title, principal: request.staff, current: p.current ?? null, main: p.main, t: p.t })
    : signedOutLayout({ title: p.title, main: p.main, t: p.t });
  return reply.code(p.status ?? 200).headers(PAGE_HEADERS).send(body);
}
