import { AppError } from '../../../platform/errors.js';
import type { AppContext } from '../../../platform/context.js';
import { recordAudit, type AuditContext } from '../../staff/audit.js';
import { draftProblems, getDraftView, type AuthoringScope } from '../drafts.js';
import { sectionsWithQuestions } from '../sections.js';
import { getTest } from '../tests-service.js';
import { exportCsv } from './csv-export.js';
import { qtiPackageOf } from './import-service.js';
import type { ExportableTest } from './qti-export.js';

/**
 * Export from the portal (docs/import-export.md "Export from the portal"):
 * a test an author or admin may edit (another institution's is a 404, as
 * everywhere in authoring), as a QTI 3.0 package or a CSV in the import
 * template's columns.
 *
 * Which content: `draft` is what the editor shows, the saved draft (the
 * current version when no draft was saved since); it must be complete, as
 * publishing requires, or the export is refused (409 `invalid_state` with
 * each problem) rather than writing a package no system could read.
 * `latest` is what the Tests page offers: the newest published version, or
 * the draft when the test was never published. Every export is audited as
 * `test.exported`.
 */
export type ExportFormat = 'qti3' | 'csv';
export type ExportSource = 'draft' | 'latest';

export interface ExportedFile {
  bytes: Uint8Array;
  contentType: string;
  /** The test's title, for the file name. */
  title: string;
  extension: 'zip' | 'csv';
  /** The version written, or null for the draft. */
  version: number | null;
}

export async function exportAuthoredTest(
  ctx: AppContext,
  scope: AuthoringScope,
  testId: string,
  opts: { format: ExportFormat; source: ExportSource; audit: AuditContext },
): Promise<ExportedFile> {
  const view = await getDraftView(ctx.pool, scope, testId);
  const published = view.nextVersion - 1;
  let test: ExportableTest;
  let version: number | null = null;
  if (opts.source === 'latest' && published > 0) {
    test = await getTest(ctx.pool, testId);
    version = published;
  } else {
    const { problems, valid } = await draftProblems(ctx.pool, view.content, view.ownerInstitutionId);
    if (!valid) {
      throw new AppError('invalid_state', `The draft cannot be exported until it is complete: ${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 50));
    }
    const { input, checked } = valid;
    test = {
      testId,
      title: input.title,
      durationMinutes: input.durationMinutes,
      contentFormat: input.contentFormat ?? 'plain',
      language: input.language ?? null,
      ...(checked.passages.length > 0 ? { passages: checked.passages } : {}),
      ...(checked.sections ? { sections: sectionsWithQuestions(checked.sections, checked.questions) } : { questions: checked.questions }),
    };
  }
  const bytes = opts.format === 'csv' ? new TextEncoder().encode(exportCsv(test)) : await qtiPackageOf(ctx, test);
  await recordAudit(ctx.pool, {
    actor: opts.audit.actor,
    ip: opts.audit.ip,
    action: 'test.exported',
    objectType: 'test',
    objectId: testId,
    institutionId: view.ownerInstitutionId,
    details: { format: opts.format, ...(version === null ? { draftRevision: view.revision } : { version }), title: test.title },
  });
  return opts.format === 'csv'
    ? { bytes, contentType: 'text/csv; charset=utf-8', title: test.title, extension: 'csv', version }
    : { bytes, contentType: 'application/zip', title: test.title, extension: 'zip', version };
}
