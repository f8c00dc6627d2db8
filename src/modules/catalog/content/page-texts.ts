import type { ContentCache } from './content-cache.js';
import { studentAssetUrl, type ContentFormat } from './content-format.js';
import { contentText, renderContent } from './render-content.js';
import { studentContent } from './rendered-content.js';
import type { SafeHtml } from '../../../platform/web/html.js';
import { englishTranslator, type Translator } from '../../../platform/i18n/catalogue.js';

/**
 * A test version's texts as one page shows them (docs/content.md): rendered
 * through a cache once per version (the student's, or staff's for the
 * portal's preview), or as plain text where no markup can go (a select's
 * option, an accessible name). For a `plain` test every rendering is the
 * escaped text, so its pages keep the markup they always had.
 */
export interface PageTexts {
  /** Whether the texts are Markdown (block output needs its own element and `white-space: normal`). */
  readonly markdown: boolean;
  block(field: string, source: string): SafeHtml;
  inline(field: string, source: string): SafeHtml;
  text(source: string): string;
  /** The URL of an `asset:` image on this page (the student's route, or staff's for the portal): for an image a question type draws itself. */
  assetUrl(assetId: string): string;
  /** The page's language: the words a question type's part adds around the texts (English for staff views). */
  readonly t: Translator;
}

export function pageTexts(
  version: { testVersionId: string; contentFormat: ContentFormat; contentLanguage?: string; language?: string | null },
  cache: ContentCache = studentContent,
  t: Translator = englishTranslator(),
): PageTexts {
  // A version stored before the field existed reads as plain (as the column's default does).
  const format: ContentFormat = version.contentFormat ?? 'plain';
  if (format === 'plain') {
    // Escaping is cheaper than a cache look-up, and keeps plain pages exactly as they were.
    const plain = (_field: string, source: string) => renderContent(source, 'plain', { assetUrl: studentAssetUrl });
    return { markdown: false, block: plain, inline: plain, text: (source) => source, assetUrl: cache.assetUrl, t };
  }
  // A translation's texts are kept apart from the source's (translations/localize.ts sets contentLanguage), so neither pushes the other out.
  const translated = version.contentLanguage !== undefined && version.contentLanguage !== (version.language ?? 'en');
  const keyed = { testVersionId: translated ? `${version.testVersionId}@${version.contentLanguage}` : version.testVersionId, contentFormat: format };
  return {
    markdown: true,
    block: (field, source) => cache.render(keyed, field, source),
    inline: (field, source) => cache.render(keyed, field, source, { inline: true }),
    text: (source) => contentText(source, format),
    assetUrl: cache.assetUrl,
    t,
  };
}

/** A plain test's texts (escaped as written): the default of views that are also used without a version at hand. */
export const plainTexts: PageTexts = pageTexts({ testVersionId: '', contentFormat: 'plain' });
