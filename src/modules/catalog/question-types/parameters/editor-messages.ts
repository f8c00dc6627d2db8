import type { MessageKey } from '../../../../platform/i18n/catalogue.js';

/**
 * What the form editor's Variables fields (assets/editor-parameters.js, on the
 * editor page beside the question types' editor parts) format in the browser
 * with window.AssayI18n.t: the editor page sends them.
 */
export const PARAMETERS_EDITOR_MESSAGES: readonly MessageKey[] = [
  'portal.editor.parameters.name', 'portal.editor.parameters.nameHint', 'portal.editor.parameters.kindRange', 'portal.editor.parameters.kindValues',
  'portal.editor.parameters.kind', 'portal.editor.parameters.values', 'portal.editor.parameters.valuesHint', 'portal.editor.parameters.min',
  'portal.editor.parameters.max', 'portal.editor.parameters.step', 'portal.editor.parameters.stepHint', 'portal.editor.remove',
  'portal.editor.parameters.variableName', 'portal.editor.parameters.drawValue', 'portal.editor.parameters.drawFromAccepted',
  'portal.editor.parameters.draw', 'portal.editor.parameters.show', 'portal.editor.parameters.drawing', 'portal.editor.parameters.drawsFailed',
  'portal.editor.parameters.noDraws', 'portal.editor.parameters.offline', 'portal.editor.parameters.drawsHint', 'portal.editor.parameters.legend',
  'portal.editor.parameters.hint', 'portal.editor.parameters.add', 'portal.editor.parameters.constraints',
  'portal.editor.parameters.constraintsHint', 'portal.editor.parameters.formula', 'portal.editor.parameters.formulaHintNumeric',
  'portal.editor.parameters.formulaHintText',
];
