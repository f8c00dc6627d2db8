import { Type } from '@sinclair/typebox';
import type { MessageKey } from '../../../platform/i18n/catalogue.js';
import { languageName, LOCALES } from '../../../platform/i18n/locales.js';
import { Draft } from '../../catalog/authoring-schemas.js';
import type { DraftView } from '../../catalog/drafts.js';
import { sourceTexts } from '../../catalog/translations/translatable.js';
import { PortalProblem } from './problem-words.js';

/**
 * What the form editor's Translations panel (editor-translations.js) is
 * given by the server, so the browser never decides on its own which texts
 * of a test are translatable: the paths translatable.ts names for the
 * draft as saved, sent with the page and with every save's answer, and the
 * languages a translation may be written in (the candidate's page
 * languages, with their names).
 */

/** The portal's draft answer: the catalogue's Draft and the paths of the texts a translation may give, in the test's order. */
export const PortalDraft = Type.Object({
  ...Draft.properties,
  problems: Type.Array(PortalProblem, { description: 'What publishing would refuse now, each at its field path, with the schema rule it broke' }),
  translatable: Type.Array(Type.String(), { description: 'The flat paths of the texts a translation may give (docs/test-format.md "Languages")' }),
});

/** The draft as the editor's routes answer it. */
export function portalDraft(view: DraftView): DraftView & { translatable: string[] } {
  return { ...view, translatable: translatablePaths(view.content) };
}

export function translatablePaths(content: Record<string, unknown>): string[] {
  return [...sourceTexts(content).keys()];
}

export interface TranslationLocale {
  tag: string;
  /** Its name in the portal's language ("French"), for the labels. */
  name: string;
  /** Its name in itself ("Français"). */
  native: string;
  dir: 'ltr' | 'rtl';
}

/** The languages offered as a test's language or a translation's: the catalogue's locales, named in `portalLang`. */
export function translationLocales(portalLang: string): TranslationLocale[] {
  return LOCALES.map((l) => ({ tag: l.tag, name: languageName(l.tag, portalLang), native: l.name, dir: l.dir }));
}

/** The messages editor-translations.js formats (window.AssayI18n.t). */
export const TRANSLATION_MESSAGES: readonly MessageKey[] = [
  'portal.editor.translations.add',
  'portal.editor.translations.addButton',
  'portal.editor.translations.added',
  'portal.editor.translations.addHint',
  'portal.editor.translations.counts',
  'portal.editor.translations.current',
  'portal.editor.translations.edit',
  'portal.editor.translations.field.description',
  'portal.editor.translations.field.partField',
  'portal.editor.translations.field.partItem',
  'portal.editor.translations.field.passage',
  'portal.editor.translations.field.question',
  'portal.editor.translations.field.questionBlankOption',
  'portal.editor.translations.field.questionItem',
  'portal.editor.translations.field.section',
  'portal.editor.translations.field.title',
  'portal.editor.translations.heading',
  'portal.editor.translations.intro',
  'portal.editor.translations.language',
  'portal.editor.translations.languageHint',
  'portal.editor.translations.languageNotStated',
  'portal.editor.translations.languageTag',
  'portal.editor.translations.localeHeading',
  'portal.editor.translations.locales',
  'portal.editor.translations.missing',
  'portal.editor.translations.nothing',
  'portal.editor.translations.none',
  'portal.editor.translations.remove',
  'portal.editor.translations.removeConfirm',
  'portal.editor.translations.removed',
  'portal.editor.translations.source',
  'portal.editor.translations.sourceIn',
  'portal.editor.translations.stale',
  'portal.editor.translations.target',
  'portal.editor.translations.unsavedRows',
];
