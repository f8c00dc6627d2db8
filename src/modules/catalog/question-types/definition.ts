import type { TObject, TSchema } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../platform/errors.js';
import type { SafeHtml } from '../../../platform/web/html.js';
import type { PageTexts } from '../content/page-texts.js';
import type { MessageKey } from '../../../platform/i18n/catalogue.js';
import type { Ctx } from '../interchange/qti-item-context.js';
import type { Decl, TextWriter } from '../interchange/qti-writer.js';
import type { XElement } from '../interchange/xml.js';

/**
 * A question type is one unit: this definition, in its own folder under
 * question-types/, registered once in registry.ts. Every layer reads the
 * type through the registry — the API schema and authoring checks here in
 * catalog, the answer's shape (attempts), the marking (marking), the page's
 * part (student), the staff's words and the answer view (portal), what the
 * statistics count (results), what test mode's simulate answers (sandbox),
 * the QTI mapping both ways (interchange) — so adding a type is its folder
 * plus one line in the registry (docs/architecture.md, "Adding a question
 * type").
 *
 * Everything here is pure (no I/O, no clock): a definition imports
 * platform, catalog's kits and nothing above catalog. The parts that run in
 * a browser are plain scripts in the folder (`student.js`, `editor.js`),
 * named in `scripts` and served by the student and portal modules.
 *
 * Nothing in this file imports the registry or schemas.ts (the question
 * union is built from the definitions, so that would be a cycle): a
 * definition's question type is its own `Static<typeof schema>`.
 */

/** The smallest thing every stored question is: the fields the registry and the layers read without knowing the type. */
export interface BaseQuestion {
  type: string;
  id: string;
  prompt: string;
  points: number;
  passageId?: string;
}

/**
 * A stored answer as JSON: each type says its shape (`answer.schema`) and
 * checks it (`answer.check`). null when unanswered or cleared.
 */
export type AnswerJson = null | boolean | number | string | readonly AnswerJson[] | { readonly [key: string]: AnswerJson };

/** An answer checked against its question: the value to store (normalised: ids in the question's order, empty → null) or why not. */
export type CheckedValue = { ok: true; value: AnswerJson } | { ok: false; message: string };

/** A mark: points by the key, or "a person (or the model) must mark this". */
export type QuestionMark = { kind: 'auto'; points: number } | { kind: 'manual' };

/** What a candidate was shown of the test, as the page parts read it (catalog/delivery.ts's Delivery has these and more). */
export interface ShownOrder {
  /** Option ids in shown order, for questions whose options are shuffled. */
  optionOrder: Readonly<Record<string, readonly string[]>>;
  /** Item ids in a shown order, for questions whose items the candidate puts in order. */
  itemOrder: Readonly<Record<string, readonly string[]>>;
}

/** What the student page passes a type's part (student/pages/test-page.ts). */
export interface FieldContext {
  /** The question's field prefix (`q3`, `q3-p2` for a composite's part): every id the part writes starts with it. */
  id: string;
  /** How the question is named in accessible names: "question 3", "question 3, part 2". */
  where: string;
  /** The saved answer (null when none). */
  value: AnswerJson;
  texts: PageTexts;
  shown: ShownOrder;
  /**
   * The file uploaded as this question's answer, as the page state carries it
   * (student/load-student-page.ts): what a file_upload question's part shows
   * as "Your file" after a reload. Absent for every other question, and when
   * no file is stored.
   */
  file?: UploadedFile;
}

/** A file a student uploaded as an answer: its id (the answer's `fileId`), name as given, type and size. */
export interface UploadedFile {
  fileId: string;
  fileName: string;
  contentType: string;
  bytes: number;
}

/** What a staff view passes a type's answer view (the portal's review and assignment pages, the preview). */
export interface ReviewContext {
  texts: PageTexts;
  /**
   * A file answer as the staff view shows it (portal/assignments/answer-file-view.ts:
   * its link to the portal's file route, a preview, or only its name where
   * the reader may not open it), drawn by the caller, which knows the reader
   * and the route. Absent when the answer's file is no longer stored.
   */
  file?: SafeHtml;
}

/** A distractor table row: an option of the question, whether the key counts it right. */
export interface CountedOption {
  id: string;
  text: string;
  correct: boolean;
}

/** QTI both ways (catalog/interchange): the interaction elements read, and the item written. */
export interface QtiMapping<Q extends BaseQuestion> {
  /** The interaction elements (QTI 3 names, e.g. `qti-hotspot-interaction`) this type reads when one is an item's only interaction. */
  readonly interactions: readonly string[];
  /**
   * The item's interaction as a question, or why it cannot be one (the item is
   * then skipped, naming the reason). `ctx.rp` is the item's processing as
   * the importer understood it; a type marks natively only what its own
   * rule gives, else returns a reason (or, with `ctx.keyOnly`, builds the
   * question from the declared correct response so the processing is kept).
   */
  read(ctx: Ctx, interaction: XElement): Omit<Q, 'id'> | string;
  /** The question's declarations, body (prompt and interaction) and standalone response processing, its response named `resp`. */
  write(q: Q, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string };
  /**
   * As a composite's part: the statements that add this part's points to
   * SCORE by its own rule (one `qti-response-condition` or `qti-set-outcome-value` each).
   * Absent: the type cannot be a part.
   */
  summed?(q: Q, resp: string): string[];
}

export interface QuestionTypeDefinition<Q extends BaseQuestion = BaseQuestion> {
  /** The `type` value, fixed forever once published (docs/test-format.md). */
  readonly type: Q['type'];
  /** The words staff views use for the type: "Single choice", "Hotspot". */
  readonly label: string;
  /** The API schema: a TypeBox object whose `type` is `Type.Literal(this.type)`, with `additionalProperties: false` and a `title`. */
  readonly schema: TObject;
  /** A composite question may hold a part of this type; `omit` names the fields a part leaves out (its free-text marking fields). */
  readonly part?: { title: string; omit?: readonly string[] };
  /** Marked by the key alone (false: every answer waits for a reviewer, as essays and files do; auto-marked tests refuse the type). */
  readonly autoMarkable: boolean;

  /** Checks the schema cannot say (ids unique, the key names real options, bounds between fields); each problem names its field under `at`. */
  check?(q: Q, at: string, details: ErrorDetail[]): void;
  /** The question as stored: optional fields' defaults filled in. */
  withDefaults?(q: Q): Q;
  /**
   * The ids the candidate puts in order, when the type has such a list: the
   * delivery draws their shown order once per candidate, never the correct
   * one, and keeps it in `itemOrder` under the question's id (catalog/delivery.ts).
   * Absent: nothing is drawn.
   */
  shuffledItems?(q: Q): readonly string[];
  /** The question's texts in the test's content format (rendered on pages, bounded, images found), as `[field path under the question, text]`. */
  contentFields(q: Q): Array<[string, string]>;
  /**
   * The texts a translation may give (catalog/translations/translatable.ts),
   * as `[field path under the question, text]`, each path naming the string
   * in the question (list elements by index or by id). Absent: the
   * `contentFields` that name a string of the question, plus the prompt.
   */
  translatableFields?(q: Q): Array<[string, string]>;
  /**
   * The content assets the question shows outside its texts (an image type's
   * `image`), as `[field path under the question, asset id]`: checked to
   * exist, listed with the version (whatever its content format) so the
   * student's page may load them, and written into a QTI export.
   */
  assets?(q: Q): Array<[string, string]>;

  answer: {
    /** The JSON schema of a stored answer (joins the API's answer union; keep it bounded: lengths, counts). */
    readonly schema: TSchema;
    /** A value the page (or simulate) sends, checked against the question and normalised; null clears. */
    check(q: Q, value: AnswerJson): CheckedValue;
    /** Whether the answer counts as answered (the page's "n of m answered", the review's "not answered"). Default: not null. */
    answered?(q: Q, value: AnswerJson): boolean;
  };

  /** Marking by the key, pure; an unanswered question (null) gets 0 from the caller without asking. Absent only when `autoMarkable` is false. */
  mark?(q: Q, value: Exclude<AnswerJson, null>): QuestionMark;

  /** Test mode's simulate: an answer the key marks with full points (null for types never auto-marked), and other answers that are valid but wrong. */
  simulate: {
    correct(q: Q): AnswerJson;
    wrong?(q: Q): AnswerJson;
  };

  /** Statistics: the options counted in the distractor table, and which of them an answer chose. Absent: facility and discrimination only. */
  statistics?: {
    options(q: Q): CountedOption[];
    chosen(q: Q, value: AnswerJson): string[];
  };

  /** The student page's part: the controls below the prompt, operable by keyboard alone. */
  page(q: Q, ctx: FieldContext): SafeHtml;
  /** The answer as staff see it (review, assignment page, preview): what was chosen or written, right and wrong shown in words, not colour alone. */
  review(q: Q, value: AnswerJson, ctx: ReviewContext): SafeHtml;
  /** The answer in one line of text (the results CSV, an audit entry). */
  answerText(q: Q, value: AnswerJson): string;

  /**
   * The browser scripts in the type's folder: `student` registers how the
   * page reads and restores the answer (window.AssayQuestionTypes.register),
   * `editor` the form editor's fields for the type (window.AssayEditorTypes.register).
   */
  readonly scripts: { student?: URL; editor?: URL };
  /**
   * The catalogue's keys the `student` script formats in the browser
   * (window.AssayI18n.t): the test page sends them with the page when a
   * question of this type is on it. Prefixed `question.<type>.` (or the
   * `question.` words the types share).
   */
  readonly clientMessages?: readonly MessageKey[];
  /**
   * The catalogue's keys the `editor` script formats in the browser
   * (window.AssayI18n.t), `portal.editor.*` (the staff portal's words): the
   * editor page sends every registered type's, as it loads every type's
   * editor part. A part drawn with another type's kit (graphic_order and
   * select_point with hotspot's image fields) lists only what its own script
   * formats; the kit's type lists the rest.
   */
  readonly editorMessages?: readonly MessageKey[];
  /**
   * The type's styles in its folder: `student` for the test page (and the
   * preview), `portal` for the staff's answer view and the editor; served
   * each as one sheet of every registered type's (a sheet two types share,
   * such as the image regions', once).
   */
  readonly styles?: { student?: URL; portal?: URL };

  /** QTI import and export; absent: the type is exported as a note and never imported. */
  qti?: QtiMapping<Q>;
}

/** A definition with its question type inferred (the registry's entries). */
export function defineQuestionType<Q extends BaseQuestion>(definition: QuestionTypeDefinition<Q>): QuestionTypeDefinition<Q> {
  return definition;
}
