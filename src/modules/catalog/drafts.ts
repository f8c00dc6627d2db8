import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import { withTransaction, type Pool, type Queryable } from '../../platform/db.js';
import { validationProblems, validatorCompiler, type ValidationProblem } from '../../platform/http/validation.js';
import type { ErrorObject } from 'ajv';
import { recordAudit, type AuditContext } from '../staff/audit.js';
import { checkTestInput, type CheckedContent } from './authoring.js';
import { TestInput } from './schemas.js';
import { sectionsWithQuestions } from './sections.js';
import { checkTestContent, markdownTexts, testAssetIds } from './content/content-checks.js';
import { checkTextsOffLoop } from './content/text-checks-off-loop.js';
import { textChecks, type TextChecks } from './content/text-checks.js';
import { existingAssetIds } from './content-assets/assets-repo.js';
import * as drafts from './drafts-repo.js';
import * as tests from './tests-repo.js';
import { diffVersions, type VersionChange } from './version-diff.js';
import type { StoredTranslations, TranslationStatus } from './translations/translation-schema.js';
import { checkTranslations } from './translations/translation-checks.js';
import { keepSourceHashes, plainTranslations, stampTranslations, translationStatus } from './translations/translation-store.js';

/**
 * Authoring (docs/authoring.md): a test has one draft that editors save
 * freely — complete or not, never a version — and publish: the draft,
 * validated in full, frozen as the next version. Saves use optimistic
 * concurrency: each names the revision it started from, and a save from a
 * stale revision is refused (409) with who saved the newer one, so two
 * editors never overwrite each other unknowingly.
 *
 * Who: `scope` is the institution whose own tests an author or admin works
 * on (another institution's test, or the operators' catalogue, is a 404), or
 * 'all' for operators.
 */
export type AuthoringScope = { institutionId: string } | 'all';
export type { AuthoredTestRow, VersionListItem } from './drafts-repo.js';

export interface DraftView {
  testId: string;
  ownerInstitutionId: string | null;
  /** The TestInput body as last saved (complete or not). */
  content: Record<string, unknown>;
  /** 0: no draft saved yet (the content is the current version's). */
  revision: number;
  updatedBy: string | null;
  updatedAt: Date | null;
  /** The version the next publish will write. */
  nextVersion: number;
  /** What publishing would refuse now, each at its field path (empty: publishable); a schema problem with the rule it broke. */
  problems: ValidationProblem[];
  /** Per translation in the content, its missing and stale texts (absent when the content has none). */
  translationStatus?: TranslationStatus;
}

/** Publishing refused: every problem at its field, in the API's envelope (field and message). */
function refused(problems: ValidationProblem[]): AppError {
  return new AppError('invalid_request', `${problems[0]!.field}: ${problems[0]!.message}`, problems.map(({ field, message }) => ({ field, message })));
}

/** Saves are audited at most once per editor per test within this window; publishing is always audited. */
export const DRAFT_AUDIT_WINDOW_MS = 10 * 60_000;

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validate = validatorCompiler({ schema: TestInput, method: 'PUT', url: '/draft', httpPart: 'body' }) as unknown as Validate;

type Checked = { problems: ValidationProblem[]; valid: { input: TestInput; checked: CheckedContent } | null };

/**
 * The content checked against the schema, as a copy (ajv with defaults fills
 * the object it checks; the draft stays as written), or its problems. The
 * texts' content checks are kept per text (content/text-checks.ts), so after
 * a save only the texts it changed are checked again; texts the process has
 * not seen, past a few, are checked here on the worker pool (a full pool: 503).
 */
async function schemaChecked(content: unknown, texts: TextChecks): Promise<{ input: TestInput } | { input: null; problems: ValidationProblem[] }> {
  const copy: unknown = structuredClone(content);
  if (!validate(copy)) return { input: null, problems: validationProblems(validate.errors ?? [], 'body') };
  if (texts === textChecks) await checkTextsOffLoop(markdownTexts(copy as TestInput));
  return { input: copy as TestInput };
}

/** The Markdown texts of content not yet held to the schema, as far as they can be found (none where it is not shaped like a test yet). */
function textsOf(content: unknown): string[] {
  try {
    return markdownTexts(content as TestInput).filter((t) => typeof t === 'string');
  } catch {
    return [];
  }
}

/** The authoring rules of content the schema accepts, with the owner's assets that it names looked up. */
async function ruleChecked(db: Queryable, input: TestInput, owner: string | null, texts: TextChecks): Promise<Checked> {
  try {
    const checked = checkTestInput(input, await existingAssetIds(db, testAssetIds(input, texts), owner), texts);
    return { problems: [], valid: { input, checked } };
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') return { problems: err.details ?? [{ field: '', message: err.message }], valid: null };
    throw err;
  }
}

/** Every problem of a draft: the schema first; the authoring rules once the schema holds. */
export async function draftProblems(
  db: Queryable,
  content: unknown,
  owner: string | null,
  /** Each text's content check: the process's kept ones, or freshTextChecks for a check with nothing kept. */
  texts: TextChecks = textChecks,
): Promise<Checked> {
  const schema = await schemaChecked(content, texts);
  return schema.input ? ruleChecked(db, schema.input, owner, texts) : { problems: schema.problems, valid: null };
}

/**
 * A draft may be unfinished, but not over the bounds on formulas
 * (content/math-limits.ts): those are refused (400, at their fields) and
 * nothing is written, so no draft holds what would be costly to check or
 * preview. Content the schema does not yet accept has no fields to look at;
 * its questions are checked one by one where they are shown.
 */
function refuseOverBounds(input: TestInput): void {
  const over: ErrorDetail[] = [];
  checkTestContent(input, over, undefined, 'bounds');
  checkTranslations(input, over, undefined, 'bounds');
  if (over.length > 0) throw new AppError('invalid_request', `${over[0]!.field}: ${over[0]!.message}`, over);
}

/** The test if the scope may author it (not deleted), else 404. */
async function authorable(db: Queryable, scope: AuthoringScope, testId: string, lock = false): Promise<drafts.TestHead> {
  const head = await drafts.findTestHead(db, testId, lock);
  if (!head || (scope !== 'all' && head.ownerInstitutionId !== scope.institutionId)) throw notFound('test');
  return head;
}

const editor = (audit: AuditContext | undefined) =>
  audit?.actor.kind === 'staff' ? { staffId: audit.actor.staffId, email: audit.actor.email } : { staffId: null, email: audit ? audit.actor.kind : null };
/** One staff member in one browser tab (the editor page's per-tab id); none for other callers, whose stale saves are always conflicts. */
const editorInstance = (audit: AuditContext | undefined, editorId: string | undefined) =>
  editorId && audit?.actor.kind === 'staff' ? `${audit.actor.staffId}:${editorId}` : null;
const actorKey = (audit: AuditContext) => (audit.actor.kind === 'staff' ? `staff:${audit.actor.staffId}` : audit.actor.kind);

async function audited(tx: Queryable, audit: AuditContext | undefined, head: drafts.TestHead, action: string, details: Record<string, unknown>) {
  if (audit) await recordAudit(tx, { actor: audit.actor, ip: audit.ip, action, objectType: 'test', objectId: head.testId, institutionId: head.ownerInstitutionId, details });
}

/** The current version as a draft's content (the TestInput body), for a test edited before it had a draft. */
async function contentOfCurrentVersion(db: Queryable, testId: string): Promise<Record<string, unknown>> {
  const v = await tests.getCurrentTestVersion(db, testId);
  if (!v) return {};
  return {
    title: v.title,
    description: v.description,
    durationMinutes: v.durationMinutes,
    proctoring: v.proctoring,
    marking: v.marking,
    resultVisibility: v.resultVisibility,
    passPercent: v.passPercent,
    ...(v.proctoring !== 'none' && v.proctoringRules ? { proctoringRules: v.proctoringRules } : {}),
    contentFormat: v.contentFormat,
    ...(v.sections ? { sections: sectionsWithQuestions(v.sections, v.questions) } : { questions: v.questions }),
    ...(v.language !== null ? { language: v.language } : {}),
    ...(Object.keys(v.translations).length > 0 ? { translations: plainTranslations(v.translations) } : {}),
  };
}

/** The source hashes a draft's translations had: the draft's, or the current version's before any draft (translations/translation-store.ts). */
async function storedTranslations(db: Queryable, testId: string, draft: drafts.StoredDraft | null): Promise<StoredTranslations> {
  if (draft) return draft.translations;
  return (await tests.getCurrentTestVersion(db, testId))?.translations ?? {};
}

/** The content's translations stamped: texts saved unchanged keep their source hashes, new or edited ones take the current source's. */
async function stampedFor(db: Queryable, testId: string, content: Record<string, unknown>, draft: drafts.StoredDraft | null): Promise<StoredTranslations> {
  if (!content.translations || typeof content.translations !== 'object') return {};
  return stampTranslations(content.translations, content, await storedTranslations(db, testId, draft));
}

/**
 * A new test with its first draft (no version until published): owned by
 * the scope's institution, or the operators' catalogue for 'all'.
 */
export async function createDraftTest(pool: Pool, scope: AuthoringScope, content: Record<string, unknown>, audit?: AuditContext): Promise<DraftView> {
  const owner = scope === 'all' ? null : scope.institutionId;
  const schema = await schemaChecked(content, textChecks);
  if (schema.input) refuseOverBounds(schema.input);
  const testId = await withTransaction(pool, async (tx) => {
    const id = await drafts.insertDraftTest(tx, owner, content, editor(audit), stampTranslations(content.translations, content));
    const head = { testId: id, ownerInstitutionId: owner, currentVersion: 0 };
    await audited(tx, audit, head, 'test.created', { title: typeof content.title === 'string' ? content.title.slice(0, 200) : null });
    if (audit) await drafts.markDraftAudited(tx, id, actorKey(audit));
    return id;
  });
  return getDraftView(pool, scope, testId);
}

/**
 * The problems of saved draft revisions, kept in-process: a revision never
 * changes, so the editor opening a 200-question draft does not validate it
 * again after its save did (docs/performance.md). Bounded, least recently
 * used out first. Revision 0 (no draft row: the current version's content)
 * is keyed by the version too. Problems naming a missing asset are not
 * kept, so an upload is seen at the next read.
 */
const PROBLEMS_CACHE_SIZE = 200;
const problemsCache = new Map<string, ValidationProblem[]>();

function keepProblems(key: string, problems: ValidationProblem[]): ValidationProblem[] {
  if (!problems.some((p) => p.message.includes('does not exist'))) {
    if (problemsCache.size >= PROBLEMS_CACHE_SIZE) problemsCache.delete(problemsCache.keys().next().value!);
    problemsCache.set(key, problems);
  }
  return problems;
}

async function cachedProblems(db: Queryable, key: string, content: unknown, owner: string | null): Promise<ValidationProblem[]> {
  const hit = problemsCache.get(key);
  if (hit) {
    problemsCache.delete(key);
    problemsCache.set(key, hit);
    return hit;
  }
  return keepProblems(key, (await draftProblems(db, content, owner)).problems);
}

export async function getDraftView(db: Queryable, scope: AuthoringScope, testId: string): Promise<DraftView> {
  const head = await authorable(db, scope, testId);
  return viewOf(db, head, await drafts.getDraft(db, testId));
}

/** The view of a test's draft as stored (none: the current version's content, revision 0), with its problems when they are known. */
async function viewOf(db: Queryable, head: drafts.TestHead, draft: drafts.StoredDraft | null, known?: ValidationProblem[]): Promise<DraftView> {
  const testId = head.testId;
  const content = draft?.content ?? (await contentOfCurrentVersion(db, testId));
  const key = `${testId}:${draft?.revision ?? 0}:${head.currentVersion}:${draft?.updatedAt.getTime() ?? 0}`;
  const problems = known ? keepProblems(key, known) : await cachedProblems(db, key, content, head.ownerInstitutionId);
  const stamps = content.translations ? await storedTranslations(db, testId, draft) : {};
  return {
    testId,
    ownerInstitutionId: head.ownerInstitutionId,
    content,
    revision: draft?.revision ?? 0,
    updatedBy: draft?.updatedByEmail ?? null,
    updatedAt: draft?.updatedAt ?? null,
    nextVersion: head.currentVersion + 1,
    problems,
    ...(Object.keys(stamps).length > 0 ? { translationStatus: translationStatus(stamps, content) } : {}),
  };
}

function staleDraft(current: drafts.StoredDraft | null, fromRevision: number): AppError {
  const who = current?.updatedByEmail ?? 'someone else';
  const at = current?.updatedAt.toISOString() ?? 'meanwhile';
  const now = current?.revision ?? 0;
  return new AppError('invalid_state', `The draft was saved by ${who} at ${at} (revision ${now}); your changes start from revision ${fromRevision}. Reload the draft and apply them again.`, [
    { field: 'revision', message: `is ${fromRevision}, but the draft is at revision ${now}, saved by ${who} at ${at}` },
  ]);
}

/**
 * Saves the draft as it is (incomplete tests too: the problems come back
 * with it, nothing is enforced) if nobody saved since `revision`; 409
 * `invalid_state` otherwise, naming the current revision and who saved it.
 * The portal's editor names its tab (`editorId`): the same staff member's
 * saves from that tab are never a conflict with each other (drafts-repo.ts).
 * Audited as `test.draft_saved` at most once per editor per test per
 * DRAFT_AUDIT_WINDOW_MS (a burst of autosaves is one entry). Content over
 * the bounds on formulas is refused (400) and nothing is written. The stored
 * content is checked once per save, and of its texts only those the process
 * has not checked before are checked afresh (docs/authoring.md "How a save
 * is checked").
 */
export async function saveDraft(
  pool: Pool,
  scope: AuthoringScope,
  testId: string,
  save: { revision: number; content: Record<string, unknown>; editorId?: string | undefined },
  audit?: AuditContext,
): Promise<DraftView> {
  // Texts not seen yet are checked before the transaction (on the worker pool when many), so it never
  // holds a connection and the draft's row while waiting for the pool, and a full pool refuses at once.
  await checkTextsOffLoop(textsOf(save.content));
  const { head, written, problems } = await withTransaction(pool, async (tx) => {
    const head = await authorable(tx, scope, testId);
    const stamps = await stampedFor(tx, testId, save.content, save.content.translations ? await drafts.getDraft(tx, testId) : null);
    const written = await drafts.writeDraft(tx, testId, save.revision, save.content, editor(audit), stamps, editorInstance(audit, save.editorId));
    if (!written) throw staleDraft(await drafts.getDraft(tx, testId), save.revision);
    // The content as stored (the row the UPDATE returned) is checked once: over a bound on formulas the
    // save is undone; otherwise what is found is the view's problems, as a check of the stored draft finds them.
    const schema = await schemaChecked(written.content, textChecks);
    if (schema.input) refuseOverBounds(schema.input);
    const { problems } = schema.input ? await ruleChecked(tx, schema.input, head.ownerInstitutionId, textChecks) : schema;
    const done = { head, written, problems };
    if (!audit) return done;
    const key = actorKey(audit);
    const recent = written.auditActor === key && written.auditedAt !== null && Date.now() - written.auditedAt.getTime() < DRAFT_AUDIT_WINDOW_MS;
    if (recent) return done;
    await audited(tx, audit, head, 'test.draft_saved', { revision: written.revision });
    await drafts.markDraftAudited(tx, testId, key);
    return done;
  });
  return viewOf(pool, head, written, problems);
}

export interface PublishedVersion {
  testId: string;
  version: number;
  /** The draft revision that was published. */
  publishedRevision: number;
  /** The draft's revision now: the published content with its generated ids, to continue editing from. */
  revision: number;
}

/**
 * Publishes the draft at `revision` as the next version: validated in full
 * (400 `invalid_request`, every problem at its field path, nothing written),
 * refused with 409 when the draft moved on since. An institution's own test
 * is published to that institution with its first version. Assignments keep
 * the version they pinned.
 */
export async function publishDraft(pool: Pool, scope: AuthoringScope, testId: string, revision: number, audit?: AuditContext): Promise<PublishedVersion> {
  return withTransaction(pool, async (tx) => {
    const head = await authorable(tx, scope, testId, true);
    const draft = await drafts.getDraft(tx, testId, true);
    if (!draft || draft.revision !== revision) throw staleDraft(draft, revision);
    const { problems, valid } = await draftProblems(tx, draft.content, head.ownerInstitutionId);
    if (!valid) throw refused(problems);
    const { input } = valid;
    const checked = { ...valid.checked, translations: keepSourceHashes(valid.checked.translations, draft.translations) };
    const version = await tests.appendVersion(tx, testId, input, checked);
    if (head.ownerInstitutionId !== null) await drafts.publishToOwner(tx, testId, head.ownerInstitutionId);
    // The draft becomes the version as stored (generated ids and defaults filled in), so the next
    // version's questions and sections keep their ids and the diff matches them.
    const next = await drafts.writeDraft(tx, testId, revision, await contentOfCurrentVersion(tx, testId), editor(audit), checked.translations);
    await audited(tx, audit, head, 'test.version_published', { version, revision, title: input.title });
    return { testId, version, publishedRevision: revision, revision: next!.revision };
  });
}

export function listVersions(db: Queryable, scope: AuthoringScope, testId: string): Promise<drafts.VersionListItem[]> {
  return authorable(db, scope, testId).then(() => drafts.listVersions(db, testId));
}

/** What version `version` changed from the one before it (version 1: from nothing). */
export async function versionChanges(db: Queryable, scope: AuthoringScope, testId: string, version: number): Promise<{ version: number; previous: number | null; changes: VersionChange[] }> {
  await authorable(db, scope, testId);
  const id = await drafts.versionId(db, testId, version);
  if (!id) throw notFound('version');
  const after = (await tests.getTestVersionById(db, id))!;
  const previousId = version > 1 ? await drafts.versionId(db, testId, version - 1) : null;
  const before = previousId
    ? (await tests.getTestVersionById(db, previousId))!
    : { ...after, title: '', description: '', questions: [], sections: [], passPercent: null, proctoringRules: null, language: null, translations: {} };
  return { version, previous: previousId ? version - 1 : null, changes: diffVersions(before, after) };
}

/**
 * Soft delete: the test leaves every listing and the partner's reads (no
 * new assignment), while assignments that pinned a version keep working.
 */
export async function deleteTest(pool: Pool, scope: AuthoringScope, testId: string, audit?: AuditContext): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const head = await authorable(tx, scope, testId, true);
    await drafts.softDeleteTest(tx, testId);
    await audited(tx, audit, head, 'test.deleted', {});
  });
}

/** The scope's tests (an institution's own, or every one for 'all'), drafts-only ones included. */
export function listAuthoredTests(db: Queryable, scope: AuthoringScope, page: { limit: number; offset: number }) {
  return drafts.listAuthoredTests(db, scope === 'all' ? undefined : scope.institutionId, page);
}

/**
 * **Try it**: the draft's current revision frozen as a trial version
 * (tests-repo `trialVersionId`) once it passes every check of publishing;
 * 400 with the problems otherwise; a catalogue test (no institution, so no
 * test mode) is 409 invalid_state. The caller makes the test-mode
 * assignment that takes it.
 */
export async function trialVersion(pool: Pool, scope: AuthoringScope, testId: string): Promise<{ testVersionId: string; ownerInstitutionId: string; title: string }> {
  return withTransaction(pool, async (tx) => {
    const head = await authorable(tx, scope, testId, true);
    // Try it is a test-mode run, and test mode is an institution's: a catalogue test has none.
    if (head.ownerInstitutionId === null) throw new AppError('invalid_state', 'A catalogue test belongs to no institution, so it has no test mode to try it in.');
    const draft = await drafts.getDraft(tx, testId, true);
    const content = draft?.content ?? (await contentOfCurrentVersion(tx, testId));
    const { problems, valid } = await draftProblems(tx, content, head.ownerInstitutionId);
    if (!valid) throw refused(problems);
    const checked = { ...valid.checked, translations: keepSourceHashes(valid.checked.translations, await storedTranslations(tx, testId, draft)) };
    const testVersionId = await tests.trialVersionId(tx, testId, draft?.revision ?? 0, valid.input, checked);
    return { testVersionId, ownerInstitutionId: head.ownerInstitutionId, title: valid.input.title };
  });
}
