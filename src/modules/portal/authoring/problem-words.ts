import { Type } from '@sinclair/typebox';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import type { BrokenRule, ValidationProblem } from '../../../platform/http/validation.js';

/** The schema's pattern of an id (editor-problems.js words it apart). */
const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/**
 * The draft's problems as the portal's editor receives them: the field path
 * and the API's message, and for a problem of the schema the rule it broke,
 * which the editor words with the field's own label (editor-problems.js),
 * so no validator wording ("must NOT have fewer than 1 items") reaches the
 * page. The operator API's draft keeps field and message only.
 */
export const PortalProblem = Type.Object({
  field: Type.String(),
  message: Type.String(),
  rule: Type.Optional(
    Type.Object({
      keyword: Type.String({ description: 'The schema keyword broken: minLength, minItems, maximum, required, pattern, enum, type, format, …' }),
      limit: Type.Optional(Type.Number()),
      type: Type.Optional(Type.String()),
      format: Type.Optional(Type.String()),
      pattern: Type.Optional(Type.String()),
      allowed: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});

/** The messages editor-problems.js formats (window.AssayI18n.t). */
export const PROBLEM_MESSAGES: readonly MessageKey[] = [
  'portal.editor.problems.heading', 'portal.editor.problems.item', 'portal.editor.problems.itemIn', 'portal.editor.problems.sentenceIn',
  'portal.editor.problems.whereField',
  'portal.editor.problem.tooFew.questions', 'portal.editor.problem.tooFew.sectionQuestions', 'portal.editor.problem.tooFew.sections',
  'portal.editor.problem.tooFew.options', 'portal.editor.problem.tooFew.answers', 'portal.editor.problem.tooFew.blanks',
  'portal.editor.problem.tooFew.items', 'portal.editor.problem.tooFew.criteria', 'portal.editor.problem.tooFew.fileTypes',
  'portal.editor.problem.tooFew.entries', 'portal.editor.problem.tooMany', 'portal.editor.problem.testTitle', 'portal.editor.problem.sectionTitle',
  'portal.editor.problem.markCorrect', 'portal.editor.problem.chooseType', 'portal.editor.problem.minLength', 'portal.editor.problem.maxLength',
  'portal.editor.problem.minimum', 'portal.editor.problem.exclusiveMinimum', 'portal.editor.problem.maximum', 'portal.editor.problem.exclusiveMaximum',
  'portal.editor.problem.multipleOf', 'portal.editor.problem.required', 'portal.editor.problem.idPattern', 'portal.editor.problem.pattern',
  'portal.editor.problem.enum', 'portal.editor.problem.type', 'portal.editor.problem.format', 'portal.editor.problem.unknownField',
  'portal.editor.problem.minProperties', 'portal.editor.problem.maxProperties', 'portal.editor.problem.notBoth', 'portal.editor.problem.invalid',
];

/**
 * What to do about a field whose schema rule broke, in words, for pages
 * drawn on the server (the preview's "Not shown yet" notice): the same
 * catalogue messages editor-problems.js gives after a field's label, so the
 * preview never shows validator wording either (problem-words.test.ts holds
 * the two to the same words).
 */
export function ruleAdvice(rule: BrokenRule, t: Translator): string {
  const type = String(rule.type ?? '').split(' or ').find((x) => x !== 'null') ?? '';
  switch (rule.keyword) {
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return t.t(`portal.editor.problem.${rule.keyword}`, { limit: rule.limit ?? 0 });
    case 'minItems':
      return t.t('portal.editor.problem.tooFew.entries', { limit: rule.limit ?? 1 });
    case 'maxItems':
      return t.t('portal.editor.problem.tooMany', { limit: rule.limit ?? 0 });
    case 'required':
      return t.t('portal.editor.problem.required');
    case 'pattern':
      return t.t(rule.pattern === ID_PATTERN ? 'portal.editor.problem.idPattern' : 'portal.editor.problem.pattern');
    case 'enum':
    case 'const':
      return t.t('portal.editor.problem.enum', { allowed: (rule.allowed ?? []).join(', ') });
    case 'type':
      return t.t('portal.editor.problem.type', { type: /^(number|integer|string|boolean|array|object)$/.test(type) ? type : 'other' });
    case 'format':
      return t.t('portal.editor.problem.format', { format: /^(uri|email|date-time|date)$/.test(rule.format ?? '') ? rule.format!.replace('-', '') : 'other' });
    case 'additionalProperties':
      return t.t('portal.editor.problem.unknownField');
    case 'discriminator':
      return t.t('portal.editor.problem.chooseType');
    case 'minProperties':
    case 'maxProperties':
      return t.t(`portal.editor.problem.${rule.keyword}`);
    case 'not':
      return t.t('portal.editor.problem.notBoth');
    default:
      return t.t('portal.editor.problem.invalid');
  }
}

/** A problem as "field: what to do" (a rule in words; a message of the authoring rules is already in words). */
export function problemText(p: ValidationProblem, t: Translator): string {
  const message = p.rule ? ruleAdvice(p.rule, t) : p.message;
  return p.field ? `${p.field}: ${message}` : message;
}
