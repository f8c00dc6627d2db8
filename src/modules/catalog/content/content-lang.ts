import { html, type SafeHtml } from '../../../platform/web/html.js';
import { contentDirection } from '../translations/localize.js';
import { DEFAULT_LANGUAGE } from '../translations/translation-schema.js';
import type { PageTexts } from './page-texts.js';

/**
 * How a page marks the test's texts (docs/languages.md "The test's own
 * language"): every view of an author's texts (the candidate's pages, the
 * report, the portal's review, marking, preview and statistics) decides the
 * same way, here.
 *
 * The attributes that mark the test's content when it is in another
 * language than the page: `lang`, and its `dir`, so a screen reader speaks
 * it in its own language and it runs in its own direction. Nothing when the
 * languages are the same, so such pages keep their markup.
 */
export type ContentLang = { lang: string; dir: 'ltr' | 'rtl' } | null | undefined;

export function contentLangAttrs(mark: ContentLang): SafeHtml | '' {
  if (!mark) return '';
  // The direction too, either way: English content on an Arabic page must run left to right, as Arabic on an English page runs right to left.
  return html` lang="${mark.lang}" dir="${mark.dir}"`;
}

/**
 * The mark for texts shown in `shown` (the test's language, or the
 * translation the candidate was given) on a page in `pageLang`: null when
 * they are the same language, and for a test that declares no language and
 * has no translation (it is not claimed to be English: see `isolatesTexts`).
 */
export function contentMark(test: { language: string | null; translated: boolean }, shown: string, pageLang: string): ContentLang {
  if (test.language === null && !test.translated) return null;
  return sameLanguage(shown, pageLang) ? null : { lang: shown, dir: contentDirection(shown) };
}

/** Whether a page isolates each of the test's texts (`isolatedTexts`): a test that says no language, on a page that is not English. */
export function isolatesTexts(test: { language?: string | null }, mark: ContentLang, pageLocale: string): boolean {
  return test.language == null && !mark && pageLocale !== 'en';
}

/**
 * The author's texts of a test that does not say its language, on a page in
 * another language than English: each text runs in its own direction
 * (`dir="auto"`: from its first strong letter), isolated from the words
 * around it, so an English question on an Arabic page reads left to right
 * with its full stop at the end, and an Arabic one on a French page right to
 * left. No `lang` is claimed: Assay does not guess an author's language.
 */
export function isolatedTexts(texts: PageTexts): PageTexts {
  return {
    ...texts,
    block: (field, source) => (texts.markdown ? html`<div dir="auto">${texts.block(field, source)}</div>` : html`<bdi>${texts.block(field, source)}</bdi>`),
    inline: (field, source) => html`<bdi>${texts.inline(field, source)}</bdi>`,
  };
}

/** Whether the content's language is the page's: the same language and script (`fr` text on an `fr-CA` page needs no mark). */
export function sameLanguage(content: string, page: string): boolean {
  try {
    const a = new Intl.Locale(content).maximize();
    const b = new Intl.Locale(page).maximize();
    return a.language === b.language && a.script === b.script;
  } catch {
    return content === page;
  }
}

/** What decides a view's marks: the language the test declares and whether it has translations (a test version has both). */
export interface ContentLanguageOf {
  language: string | null;
  translations: Readonly<Record<string, unknown>>;
}

/** A view's texts with how they are marked: `mark` for a language other than the page's, `isolate` for a test that says none. */
export type MarkedTexts = PageTexts & { readonly mark: ContentLang; readonly isolate: boolean };

/**
 * A view's texts of a test, marked for the page they are on (`texts.t`):
 * each block and inline text in `<bdi lang dir>` (a Markdown block in a
 * `<div lang dir>`) when `shown`, the language they are in (the test's own
 * unless the view shows a translation), is not the page's; each isolated
 * (`isolatedTexts`) for a test that says no language on a page not in
 * English; as they are otherwise. The staff views (marking, review, preview,
 * statistics) show the author's texts on their English pages through this.
 */
export function markedTexts(texts: PageTexts, test: ContentLanguageOf, shown: string = test.language ?? DEFAULT_LANGUAGE): MarkedTexts {
  const mark = contentMark({ language: test.language, translated: Object.keys(test.translations).length > 0 }, shown, texts.t.lang);
  const isolate = isolatesTexts(test, mark, texts.t.locale);
  if (!mark) return { ...(isolate ? isolatedTexts(texts) : texts), mark, isolate };
  const attrs = contentLangAttrs(mark);
  return {
    ...texts,
    block: (field, source) => (texts.markdown ? html`<div${attrs}>${texts.block(field, source)}</div>` : html`<bdi${attrs}>${texts.block(field, source)}</bdi>`),
    inline: (field, source) => html`<bdi${attrs}>${texts.inline(field, source)}</bdi>`,
    mark,
    isolate,
  };
}

/** A plain title or name of the author's (a section's, the test's) where markup can go, marked as `markedTexts` marks the texts. */
export function ownText(texts: Pick<MarkedTexts, 'mark' | 'isolate'>, text: string | null): SafeHtml | string {
  if (text === null || text === '') return '';
  if (texts.mark) return html`<bdi${contentLangAttrs(texts.mark)}>${text}</bdi>`;
  return texts.isolate ? html`<bdi>${text}</bdi>` : text;
}
