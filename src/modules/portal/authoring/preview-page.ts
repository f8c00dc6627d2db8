import { randomInt } from 'node:crypto';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html } from '../../../platform/web/html.js';
import { deliver, sampleDelivery } from '../../catalog/delivery.js';
import type { ContentCache } from '../../catalog/content/content-cache.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { testPage } from '../../student/pages/test-page.js';
import { contentMark } from '../../catalog/content/content-lang.js';
import { DEFAULT_LANGUAGE } from '../../catalog/translations/translation-schema.js';

/**
 * A version (or a draft read as one) as the student page shows it, for the
 * portal's sandboxed previews: every question of every section in the
 * authored order (no draw, no shuffle; a parametrised question with one
 * sample draw of its values), no answers, and without the page's
 * "turn JavaScript on" notice, since the frame runs no script. The page is
 * English, as the portal is; the test's texts (its source's) carry their
 * language and direction when it is another. A pool (a section that draws
 * some of its questions) says under its title how many of them each
 * candidate gets, since the preview shows them all.
 */
export function previewOfVersion(test: TestVersion, content: ContentCache, now: Date, t: Translator): string {
  const rendered = testPage({
    assignmentId: 'preview',
    institutionName: t.t('portal.authoring.preview.institution'),
    test: deliver(test, sampleDelivery(test, randomInt)),
    csrfToken: 'preview',
    deadlineAt: new Date(now.getTime() + test.durationMinutes * 60_000),
    serverNow: now,
    answers: [],
    content,
    contentLang: contentMark({ language: test.language, translated: Object.keys(test.translations).length > 0 }, test.language ?? DEFAULT_LANGUAGE, 'en'),
  });
  return withPoolNotes(rendered.replace(/<noscript>[\s\S]*?<\/noscript>/, ''), test, t);
}

/** "Candidates get 2 of these 3 questions" under the title of each section that draws fewer than it holds (the page numbers sections from 1 in order). */
function withPoolNotes(page: string, test: TestVersion, t: Translator): string {
  const sections = test.sections ?? [];
  return sections.reduce((out, s, k) => {
    if (s.draw === null || s.draw >= s.questionIds.length) return out;
    const note = html`<p class="notice pool-note" role="note">${t.t('portal.authoring.preview.pool', { draw: s.draw, count: s.questionIds.length })}</p>`;
    const title = new RegExp(`(<h2 class="section-title" id="section-${k + 1}-title">[\\s\\S]*?</h2>)`);
    return out.replace(title, (heading) => heading + note.toString());
  }, page);
}
