import type { MessageKey } from '../../../platform/i18n/catalogue.js';
import { PARAMETERS_EDITOR_MESSAGES } from '../../catalog/question-types/parameters/editor-messages.js';
import { questionTypeEditorMessages } from '../../catalog/question-types/registry.js';
import { PROBLEM_MESSAGES } from './problem-words.js';

/**
 * What the test editor's own scripts (editor-kit.js, editor-questions.js,
 * editor-passages.js, editor-form.js, test-editor.js) format in the browser
 * with window.AssayI18n.t.
 */
const EDITOR_SCRIPT_MESSAGES: readonly MessageKey[] = [
  'portal.editor.srAfterColon', 'portal.editor.srAfterSpace', 'portal.editor.moveUp', 'portal.editor.moveDown', 'portal.editor.remove',
  'portal.editor.option.label', 'portal.editor.option.name', 'portal.editor.option.add', 'portal.editor.option.correct',
  'portal.editor.option.fixed', 'portal.editor.ai.off', 'portal.editor.ai.suggest', 'portal.editor.ai.decide', 'portal.editor.ai.label',
  'portal.editor.ai.hint', 'portal.editor.ai.minConfidence', 'portal.editor.ai.minConfidenceHint', 'portal.editor.criteria.hint',
  'portal.editor.criteria.name', 'portal.editor.criteria.points', 'portal.editor.criteria.description', 'portal.editor.criteria.srName',
  'portal.editor.criteria.add', 'portal.editor.rubric', 'portal.editor.question.promptHint', 'portal.editor.composite.part',
  'portal.editor.composite.partDetail', 'portal.editor.question.name', 'portal.editor.question.legend', 'portal.editor.type.composite',
  'portal.editor.question.prompt', 'portal.editor.question.srName', 'portal.editor.composite.points', 'portal.editor.composite.readOnly',
  'portal.editor.question.type', 'portal.editor.question.points', 'portal.editor.passage.name', 'portal.editor.passage.heading',
  'portal.editor.passage.intro', 'portal.editor.passage.none', 'portal.editor.passage.title', 'portal.editor.passage.titleHint',
  'portal.editor.passage.text', 'portal.editor.passage.textHint', 'portal.editor.passage.srName', 'portal.editor.passage.remove',
  'portal.editor.passage.inUse', 'portal.editor.passage.removed', 'portal.editor.passage.add', 'portal.editor.passage.added',
  'portal.editor.passage.noneOption', 'portal.editor.passage.missing', 'portal.editor.passage.field', 'portal.editor.passage.fieldHint',
  'portal.editor.passage.fieldHintNone', 'portal.editor.settings.legend', 'portal.editor.settings.title', 'portal.editor.settings.description',
  'portal.editor.settings.descriptionHint', 'portal.editor.settings.duration', 'portal.editor.settings.proctoring',
  'portal.editor.settings.proctoringNone', 'portal.editor.settings.proctoringRecord', 'portal.editor.settings.proctoringLive',
  'portal.editor.settings.marking', 'portal.editor.settings.markingAuto', 'portal.editor.settings.markingManual',
  'portal.editor.settings.markingHybrid', 'portal.editor.settings.markingHint', 'portal.editor.settings.resultVisibility',
  'portal.editor.settings.resultImmediate', 'portal.editor.settings.resultAfterReview', 'portal.editor.settings.resultVisibilityHint',
  'portal.editor.settings.contentFormat', 'portal.editor.settings.formatMarkdown', 'portal.editor.settings.formatPlain',
  'portal.editor.settings.contentFormatHint', 'portal.editor.settings.passPercent', 'portal.editor.settings.passPercentHint',
  'portal.editor.question.addedToSection', 'portal.editor.question.addedToTest', 'portal.editor.question.duplicate', 'portal.editor.question.delete',
  'portal.editor.question.deleted', 'portal.editor.question.movedToSection', 'portal.editor.question.section', 'portal.editor.section.title',
  'portal.editor.section.instructions', 'portal.editor.section.instructionsHint', 'portal.editor.section.draw', 'portal.editor.section.drawHint',
  'portal.editor.section.shuffle', 'portal.editor.section.moveUp', 'portal.editor.section.moveDown', 'portal.editor.section.delete',
  'portal.editor.section.confirmDelete', 'portal.editor.section.deleted', 'portal.editor.section.nameTitled', 'portal.editor.section.name',
  'portal.editor.question.heading', 'portal.editor.question.none', 'portal.editor.question.add', 'portal.editor.question.addSrSection',
  'portal.editor.section.add', 'portal.editor.section.added', 'portal.editor.save.unsaved', 'portal.editor.save.saving', 'portal.editor.save.saved',
  'portal.editor.save.signedOut', 'portal.editor.serverAnswered', 'portal.editor.save.refusedKept', 'portal.editor.save.refused',
  'portal.editor.save.offline', 'portal.editor.conflict.fallback', 'portal.editor.conflict.status', 'portal.editor.conflict.heading',
  'portal.editor.conflict.choose', 'portal.editor.conflict.loadTheirs', 'portal.editor.conflict.keepMine', 'portal.editor.conflict.loadFailed',
  'portal.editor.conflict.loaded', 'portal.editor.conflict.anotherEditor', 'portal.editor.problems.heading', 'portal.editor.problems.itemIn',
  'portal.editor.problems.item', 'portal.editor.image.file', 'portal.editor.image.fileHint', 'portal.editor.image.alt',
  'portal.editor.image.altHint', 'portal.editor.image.upload', 'portal.editor.image.chooseFirst', 'portal.editor.image.altFirst',
  'portal.editor.image.uploading', 'portal.editor.image.notUploaded', 'portal.editor.image.added', 'portal.editor.image.offline',
  'portal.editor.image.add', 'portal.editor.image.addSr', 'portal.editor.json.notObject', 'portal.editor.json.invalidAtLine',
  'portal.editor.json.invalid', 'portal.editor.deleteTest.confirm', 'portal.editor.deleteTest.refused', 'portal.editor.publish.problemsFirst',
  'portal.editor.publish.publishing', 'portal.editor.publish.published', 'portal.editor.publish.refused', 'portal.editor.versions.loading',
  'portal.editor.versions.loadFailed', 'portal.editor.versions.changesFrom', 'portal.editor.versions.first', 'portal.editor.versions.noChanges',
  'portal.editor.versions.justNow', 'portal.editor.versions.openToSee', 'portal.editor.restore.restored', 'portal.editor.restore.outdated',
  'portal.editor.restore.restore', 'portal.editor.restore.discard',
];

/**
 * Every message the editor page's scripts format: its own, the Variables
 * fields' and every registered question type's editor part (the page loads
 * them all in /portal/assets/question-type-editors.js), each once.
 */
export function editorPageMessages(): MessageKey[] {
  return [...new Set([...EDITOR_SCRIPT_MESSAGES, ...PROBLEM_MESSAGES, ...PARAMETERS_EDITOR_MESSAGES, ...questionTypeEditorMessages()])];
}
