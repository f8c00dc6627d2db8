import type { AppContext } from '../../../platform/context.js';
import { html, PAGE_HEADERS, type SafeHtml } from '../../../platform/web/html.js';
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
  if (!file) return html`<p class="empty">No file uploaded.</p>`;
  const facts = html`<span class="hint">(${typeLabel(file.contentType)}, ${formatBytes(file.bytes)})</span>`;
  if (!opts.download) return html`<p class="answer-file">File: ${file.fileName} ${facts}</p><p class="hint">Reviewers and admins can open the file.</p>`;
  const href = scope.link(`/portal/files/${file.fileId}`);
  const link = html`<a href="${href}" download="${file.fileName}">Download ${file.fileName}</a> ${facts}`;
  if (opts.preview && file.contentType.startsWith('image/')) {
    return html`<figure class="answer-file"><img src="${href}" alt="The student's file: ${file.fileName}" class="answer-file-image"><figcaption>${link}</figcaption></figure>`;
  }
  if (opts.preview && file.contentType === 'application/pdf') {
    return html`<div class="answer-file"><iframe src="${href}" title="The student's file: ${file.fileName} (PDF)" class="answer-file-pdf"></iframe><p>${link}</p></div>`;
  }
  return html`<p class="answer-file">${link}</p>`;
}

const TYPE_LABELS: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/zip': 'ZIP archive',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel spreadsheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint presentation',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text',
  'application/vnd.oasis.opendocument.spreadsheet': 'OpenDocument spreadsheet',
  'application/vnd.oasis.opendocument.presentation': 'OpenDocument presentation',
};

export function typeLabel(type: string): string {
  if (TYPE_LABELS[type]) return TYPE_LABELS[type];
  if (type.startsWith('image/')) return `${type.slice(6).toUpperCase()} image`;
  if (type.startsWith('text/')) return type === 'text/plain' ? 'plain text' : `text (${type})`;
  return type;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 102.4) / 10} KB`;
  return `${Math.round(bytes / (1024 * 104.8576)) / 10} MB`;
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
