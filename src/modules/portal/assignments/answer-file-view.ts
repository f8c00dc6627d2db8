import type { AppContext } from '../../../platform/context.js';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, PAGE_HEADERS, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import type { AnswerFileSummary } from '../../attempts/answer-files.js';
import type { Scope } from '../ui/page.js';

/**
 * A file answer (file_upload) as staff see it. The links go to
 * /portal/files/{fileId}, which checks the reader and sends them on to a
 * fresh signed link (15 minutes): a page left open longer still works.
 * With `preview`, an image is shown inline (its alt text names the file) and
 * a PDF in a titled frame, each with the download link beside it; anything
 * else, or without `preview`, is a link with the name, type and size.
 * Without `download` (roles that may not open answer files) only the name,
 * type and size are shown.
 */
export function fileAnswerView(scope: Scope, file: AnswerFileSummary | undefined, opts: { preview: boolean; download: boolean }): SafeHtml {
  const { t } = scope;
  if (!file) return html`<p class="empty">${t.t('portal.file.none')}</p>`;
  const facts = html`<span class="hint">${t.t('portal.file.facts', { type: typeLabel(file.contentType, t), size: formatBytes(file.bytes, t) })}</span>`;
  if (!opts.download) return html`<p class="answer-file">${t.t('portal.file.name', { name: file.fileName })} ${facts}</p><p class="hint">${t.t('portal.file.reviewersOnly')}</p>`;
  const href = scope.link(`/portal/files/${file.fileId}`);
  const link = html`<a href="${href}" download="${file.fileName}">${t.t('portal.file.download', { name: file.fileName })}</a> ${facts}`;
  if (opts.preview && file.contentType.startsWith('image/')) {
    return html`<figure class="answer-file"><img src="${href}" alt="${richText(t, 'portal.file.imageAlt', { name: file.fileName })}" class="answer-file-image"><figcaption>${link}</figcaption></figure>`;
  }
  if (opts.preview && file.contentType === 'application/pdf') {
    return html`<div class="answer-file"><iframe src="${href}" title="${richText(t, 'portal.file.pdfTitle', { name: file.fileName })}" class="answer-file-pdf"></iframe><p>${link}</p></div>`;
  }
  return html`<p class="answer-file">${link}</p>`;
}

const TYPE_LABELS: Record<string, MessageKey> = {
  'application/pdf': 'portal.file.type.pdf',
  'application/zip': 'portal.file.type.zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'portal.file.type.word',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'portal.file.type.excel',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'portal.file.type.powerPoint',
  'application/vnd.oasis.opendocument.text': 'portal.file.type.odText',
  'application/vnd.oasis.opendocument.spreadsheet': 'portal.file.type.odSpreadsheet',
  'application/vnd.oasis.opendocument.presentation': 'portal.file.type.odPresentation',
};

export function typeLabel(type: string, t: Translator = portalTranslator()): string {
  const key = TYPE_LABELS[type];
  if (key) return t.t(key);
  if (type.startsWith('image/')) return t.t('portal.file.type.image', { format: type.slice(6).toUpperCase() });
  if (type.startsWith('text/')) return type === 'text/plain' ? t.t('portal.file.type.plainText') : t.t('portal.file.type.text', { type });
  return type;
}

/** Sizes as the student's page shows them; the numbers stay as digits without grouping. */
export function formatBytes(bytes: number, t: Translator = portalTranslator()): string {
  if (bytes < 1024) return t.t('portal.file.bytes', { n: String(bytes) });
  if (bytes < 1024 * 1024) return t.t('portal.file.kilobytes', { n: String(Math.round(bytes / 102.4) / 10) });
  return t.t('portal.file.megabytes', { n: String(Math.round(bytes / (1024 * 104.8576)) / 10) });
}

/**
 * Page headers for a page that shows answer files: the links redirect to
 * PUBLIC_BASE_URL's origin (usually this site), so images and frames may come
 * from there.
 */
export function filePageHeaders(ctx: AppContext): Record<string, string> {
  const origin = new URL(ctx.config.publicBaseUrl).origin;
  const csp = `${PAGE_HEADERS['content-security-policy']!.replace("img-src 'self'", `img-src 'self' ${origin}`)}; frame-src 'self' ${origin}`;
  return { ...PAGE_HEADERS, 'content-security-policy': csp };
}
