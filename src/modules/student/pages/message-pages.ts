import { englishTranslator, type Translator } from '../../../platform/i18n/catalogue.js';
import { html, layout, timeTag, type SafeHtml } from '../../../platform/web/html.js';
import { isolated, richMessage } from './rich-message.js';

/**
 * The short pages shown when the journey cannot go on: never a stack trace, always a next step.
 * Each takes the page's language (`t`); English when the caller knows none.
 */
export function messagePage(p: {
  title: string;
  paragraphs: Array<string | SafeHtml>;
  institutionName?: string;
  link?: { href: string; text: string };
  testMode?: boolean;
  t?: Translator;
}): string {
  const main = html`
<h1>${p.title}</h1>
${p.paragraphs.map((text) => html`<p>${text}</p>`)}
${p.link ? html`<p class="actions"><a class="button primary" href="${p.link.href}">${p.link.text}</a></p>` : ''}`;
  return layout({ t: p.t ?? englishTranslator(), title: p.title, institutionName: p.institutionName ?? '', main, testMode: p.testMode });
}

/** A page that knows only its language: its title and its one paragraph. */
function simplePage(t: Translator, title: string, body: string): string {
  return messagePage({ t, title, paragraphs: [body] });
}

export const invalidLinkPage = (t: Translator = englishTranslator()) => simplePage(t, t.t('message.invalidLink.title'), t.t('message.invalidLink.body'));

export const notAvailablePage = (t: Translator = englishTranslator()) => simplePage(t, t.t('message.notAvailable.title'), t.t('message.notAvailable.body'));

export const formExpiredPage = (t: Translator = englishTranslator()) => simplePage(t, t.t('message.formExpired.title'), t.t('message.formExpired.body'));

export const tooManyPage = (t: Translator = englishTranslator()) => simplePage(t, t.t('message.tooMany.title'), t.t('message.tooMany.body'));

/** A refused request (its body or form was not what the page sends). */
export const badRequestPage = (t: Translator = englishTranslator()) => simplePage(t, t.t('message.badRequest.title'), t.t('message.badRequest.body'));

/** The request id is quoted as the log keeps it: isolated, so a right-to-left sentence cannot reorder it. */
export const errorPage = (requestId: string, t: Translator = englishTranslator()) =>
  messagePage({
    t,
    title: t.t('message.error.title'),
    paragraphs: [t.t('message.error.retry'), richMessage(t, 'message.error.reference', {}, { requestId: isolated(t, requestId) })],
  });

/** The Return link, shown only when the partner has a name to return to. */
function returnLink(t: Translator, institutionName: string, returnUrl: string): { href: string; text: string } | undefined {
  return institutionName ? { href: returnUrl, text: t.t('message.returnTo', { institution: institutionName }) } : undefined;
}

/** The pages below know the assignment, so a test-mode one says so (`testMode`). */
export function linkExpiredPage(p: { institutionName: string; submitted: boolean; returnUrl: string; testMode?: boolean; t?: Translator }): string {
  const t = p.t ?? englishTranslator();
  const again = p.institutionName ? t.t('message.linkExpired.openAgain', { institution: p.institutionName }) : t.t('message.linkExpired.openAgainNoName');
  return messagePage({
    t,
    title: t.t('message.linkExpired.title'),
    institutionName: p.institutionName,
    paragraphs: [p.submitted ? t.t('message.linkExpired.submitted') : again],
    link: returnLink(t, p.institutionName, p.returnUrl),
    testMode: p.testMode,
  });
}

export function assignmentExpiredPage(p: { institutionName: string; dueAt: Date | null; returnUrl: string; testMode?: boolean; t?: Translator }): string {
  const t = p.t ?? englishTranslator();
  const title = t.t('message.assignmentExpired.title');
  const when = p.dueAt ? richMessage(t, 'message.assignmentExpired.dueBy', {}, { date: timeTag(p.dueAt, t) }) : t.t('message.assignmentExpired.noLonger');
  const ask = p.institutionName ? t.t('message.assignmentExpired.askAgain', { institution: p.institutionName }) : t.t('message.assignmentExpired.askAgainNoName');
  const main = html`
<h1>${title}</h1>
<p>${when}
${ask}</p>
<p class="actions"><a class="button primary" href="${p.returnUrl}">${t.t('message.returnTo', { institution: p.institutionName })}</a></p>`;
  return layout({ t, title, institutionName: p.institutionName, main, testMode: p.testMode });
}

/** The institution cancelled the assignment: nothing to take; what was saved is kept. */
export function withdrawnPage(p: { institutionName: string; returnUrl: string; testMode?: boolean; t?: Translator }): string {
  const t = p.t ?? englishTranslator();
  return messagePage({
    t,
    title: t.t('message.withdrawn.title'),
    institutionName: p.institutionName,
    paragraphs: [
      p.institutionName ? t.t('message.withdrawn.body', { institution: p.institutionName }) : t.t('message.withdrawn.bodyNoName'),
      t.t('message.withdrawn.mistake'),
    ],
    link: returnLink(t, p.institutionName, p.returnUrl),
    testMode: p.testMode,
  });
}
