import { Type } from '@sinclair/typebox';
import { html } from '../../../../platform/web/html.js';
import { messageWithMarkup } from '../../../../platform/web/message-markup.js';
import { checkCriteria } from '../ai-marking-fields.js';
import { defineQuestionType, type AnswerJson } from '../definition.js';
import { acceptedTypesText, formatBytes } from './file-text.js';
import { readUpload, writeUpload } from './qti.js';
import { FileUpload, MIME, UPLOAD_DEFAULT_BYTES, type FileUploadQuestion } from './schema.js';

/** The file an answer names ({ fileId }), if any. */
const fileIdOf = (value: AnswerJson): string | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as Record<string, AnswerJson>)['fileId'] === 'string'
    ? ((value as Record<string, AnswerJson>)['fileId'] as string)
    : null;

/**
 * file_upload: `{ accept, maxBytes?, rubric?, criteria? }`; the answer is
 * `{ fileId }`, set by the upload itself (attempts/store-answer-file.ts and
 * direct-answer-files.ts check the file and store it), never by an autosave,
 * which may only clear it. A person marks it, so an auto-marked test refuses it.
 */
export const fileUploadType = defineQuestionType<FileUploadQuestion>({
  type: 'file_upload',
  label: 'File upload',
  schema: FileUpload,
  autoMarkable: false,

  check(q, at, details) {
    checkCriteria(q, at, details);
    const seen = new Set<string>();
    q.accept.forEach((type, j) => {
      const t = type.trim().toLowerCase();
      if (!MIME.test(t)) details.push({ field: `${at}.accept.${j}`, message: `"${type}" is not a MIME type (like application/pdf or image/png)` });
      else if (seen.has(t)) details.push({ field: `${at}.accept.${j}`, message: `repeats "${type}"` });
      seen.add(t);
    });
  },
  withDefaults: (q) => ({ ...q, accept: q.accept.map((t) => t.trim().toLowerCase()), maxBytes: q.maxBytes ?? UPLOAD_DEFAULT_BYTES }),
  contentFields: (q) => (q.rubric ? [['rubric', q.rubric]] : []),

  answer: {
    schema: Type.Object({ fileId: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
    // A file becomes the answer through the upload itself, which checks its content; a save may only clear it.
    check: () => ({ ok: false, message: 'a file answer is given by uploading the file (POST …/files); only null clears it' }),
  },

  simulate: { correct: () => null },

  /**
   * A file input labelled "Your file"; the upload itself is question-fields.js's
   * (POST /a/{id}/files/{questionId}). The current file, if any, is shown with
   * a Remove file button; errors and progress go to the status lines below.
   */
  page(q, { id, value, file, texts: { t } }) {
    const fileId = fileIdOf(value);
    const current = fileId && file && file.fileId === fileId ? file : null;
    const maxBytes = q.maxBytes ?? UPLOAD_DEFAULT_BYTES;
    return html`<div class="file-answer" data-file-id="${current?.fileId ?? ''}" data-max-bytes="${maxBytes}">
<label class="answer-label" for="${id}-file">${t.t('question.fileUpload.label')}</label>
<p class="hint" id="${id}-file-hint">${t.t('question.fileUpload.hint', { types: acceptedTypesText(q.accept, t), size: formatBytes(maxBytes, t) })}</p>
<input type="file" id="${id}-file" class="file-input" accept="${q.accept.join(',')}" aria-describedby="${id}-file-hint ${id}-file-error">
<div class="file-saved"${current ? '' : html` hidden`}>
<p class="file-current">${messageWithMarkup(t, 'question.fileUpload.current', {}, {
      name: html`<span class="file-name">${current?.fileName ?? ''}</span>`,
      size: html`<span class="file-size">${current ? formatBytes(current.bytes, t) : ''}</span>`,
    })}</p>
<button type="button" class="button file-remove">${t.t('question.fileUpload.remove')}</button>
<p class="file-replace">${t.t('question.fileUpload.replace')}</p>
</div>
<progress class="file-progress" max="100" value="0" aria-label="${t.t('question.fileUpload.progress')}" hidden></progress>
<p class="file-status" role="status" aria-live="polite"></p>
<p class="file-error" id="${id}-file-error" role="alert"></p>
</div>`;
  },

  // The file itself is shown by the caller, who knows the file and the reader (portal/assignments/answer-file-view.ts).
  review(_q, value, { file }) {
    if (value === null) return html`<p class="empty">Not answered.</p>`;
    return file ?? html`<p class="empty">The file is no longer stored.</p>`;
  },
  answerText: (_q, value) => fileIdOf(value) ?? '',

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.fileUpload', 'portal.editor.fileUpload.accept', 'portal.editor.fileUpload.acceptHint', 'portal.editor.fileUpload.maxBytes',
    'portal.editor.fileUpload.maxBytesHint', 'portal.editor.fileUpload.rubricHint', 'portal.editor.fileUpload.group.pdf',
    'portal.editor.fileUpload.group.images', 'portal.editor.fileUpload.group.word', 'portal.editor.fileUpload.group.text',
    'portal.editor.fileUpload.group.spreadsheets', 'portal.editor.fileUpload.other', 'portal.editor.fileUpload.otherHint',
  ],
  // The upload itself is the page's question-fields.js, which shows these.
  clientMessages: [
    'question.fileUpload.failedConnection',
    'question.fileUpload.failedOver',
    'question.fileUpload.failedServer',
    'question.fileUpload.failedSession',
    'question.fileUpload.failedStatus',
    'question.fileUpload.failedStore',
    'question.fileUpload.notUsed',
    'question.fileUpload.preparing',
    'question.fileUpload.removed',
    'question.fileUpload.tooLarge',
    'question.fileUpload.uploaded',
    'question.fileUpload.uploading',
  ],
  styles: { student: new URL('./student.css', import.meta.url) },

  qti: {
    interactions: ['qti-upload-interaction'],
    read: readUpload,
    write: writeUpload,
  },
});
