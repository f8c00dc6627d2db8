import { languageName, LOCALES } from '../../../platform/i18n/locales.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';

/**
 * The intro page's Language menu: its label in the page's language, each
 * language named in its own (and marked with its `lang`, so a screen reader
 * says it right), with a button, since changing a select must not reload the
 * page by itself (WCAG 3.2.2). When the partner's or candidate's language
 * has no catalogue, a note says which language is shown instead.
 */
export function languageSwitch(p: { assignmentId: string; csrfToken: string; t: Translator }): SafeHtml {
  const { t } = p;
  const unmatched = t.choice.unmatched;
  return html`<form method="post" action="/a/${p.assignmentId}/language" class="language-switch" id="language-form">
  <input type="hidden" name="csrf" value="${p.csrfToken}">
  <label for="language-select">${t.t('language.label')}</label>
  <select id="language-select" name="locale">
    ${LOCALES.map((l) => html`<option value="${l.tag}" lang="${l.tag}"${l.tag === t.locale ? html` selected` : ''}>${l.name}</option>`)}
  </select>
  <button type="submit" class="button">${t.t('language.change')}</button>
</form>
${unmatched ? html`<p class="notice language-fallback" id="language-fallback">${t.t('language.fellBack', { requested: languageName(unmatched, t.lang), shown: languageName(t.lang, t.lang) })}</p>` : ''}`;
}
