import { html, layout, timeTag } from '../../../platform/web/html.js';

/** The short pages shown when the journey cannot go on: never a stack trace, always a next step. */
export function messagePage(p: { title: string; paragraphs: string[]; institutionName?: string; link?: { href: string; text: string }; testMode?: boolean }): string {
  const main = html`
<h1>${p.title}</h1>
${p.paragraphs.map((t) => html`<p>${t}</p>`)}
${p.link ? html`<p class="actions"><a class="button primary" href="${p.link.href}">${p.link.text}</a></p>` : ''}`;
  return layout({ title: p.title, institutionName: p.institutionName ?? '', main, testMode: p.testMode });
}

export const invalidLinkPage = () =>
  messagePage({
    title: 'This link is not valid',
    paragraphs: ['Check that you opened the whole link, or start the test again from the site that sent you here.'],
  });

export const notAvailablePage = () =>
  messagePage({
    title: 'This page is not available',
    paragraphs: ['Open your test from the link you were given. If you were in the middle of a test, opening the link again takes you back to it.'],
  });

/** The pages below know the assignment, so a test-mode one says so (`testMode`). */
export function linkExpiredPage(p: { institutionName: string; submitted: boolean; returnUrl: string; testMode?: boolean }): string {
  const who = p.institutionName || 'the site that sent you here';
  return messagePage({
    title: 'This link has expired',
    institutionName: p.institutionName,
    paragraphs: p.submitted
      ? ['Your test has already been submitted, so there is nothing more to do here.']
      : [`Go back to ${who} and open the test again: it will give you a fresh link.`],
    link: p.institutionName ? { href: p.returnUrl, text: `Return to ${p.institutionName}` } : undefined,
    testMode: p.testMode,
  });
}

export function assignmentExpiredPage(p: { institutionName: string; dueAt: Date | null; returnUrl: string; testMode?: boolean }): string {
  const main = html`
<h1>This assignment has expired</h1>
<p>${p.dueAt ? html`It had to be begun by ${timeTag(p.dueAt)}.` : 'It can no longer be begun.'}
If you still need to take this test, ask ${p.institutionName} to assign it to you again.</p>
<p class="actions"><a class="button primary" href="${p.returnUrl}">Return to ${p.institutionName}</a></p>`;
  return layout({ title: 'This assignment has expired', institutionName: p.institutionName, main, testMode: p.testMode });
}

/** The institution cancelled the assignment: nothing to take; what was saved is kept. */
export function withdrawnPage(p: { institutionName: string; returnUrl: string; testMode?: boolean }): string {
  const who = p.institutionName || 'The institution';
  return messagePage({
    title: 'This test has been withdrawn',
    institutionName: p.institutionName,
    paragraphs: [
      `${who} withdrew this test, so it can no longer be taken. Any answers you saved before are kept.`,
      'If you think this is a mistake, contact the people who sent you the test.',
    ],
    link: p.institutionName ? { href: p.returnUrl, text: `Return to ${p.institutionName}` } : undefined,
    testMode: p.testMode,
  });
}

export const formExpiredPage = () =>
  messagePage({
    title: 'This form has expired',
    paragraphs: ['Your session changed since this page was loaded. Open the test link again and try once more; your saved answers are kept.'],
  });

export const tooManyPage = () =>
  messagePage({
    title: 'Too many attempts',
    paragraphs: ['This address has opened too many links in a short time. Wait a minute, then open your test link again.'],
  });

export const errorPage = (requestId: string) =>
  messagePage({
    title: 'Something went wrong',
    paragraphs: [
      'Please try again in a moment. Your saved answers are kept.',
      `If it keeps happening, quote reference ${requestId} when you ask for help.`,
    ],
  });
