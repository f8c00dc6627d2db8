import { randomInt } from 'node:crypto';
import { deliver, sampleDelivery } from '../../catalog/delivery.js';
import type { ContentCache } from '../../catalog/content/content-cache.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { testPage } from '../../student/pages/test-page.js';

/**
 * A version (or a draft read as one) as the student page shows it, for the
 * portal's sandboxed previews: every question of every section in the
 * authored order (no draw, no shuffle; a parametrised question with one
 * sample draw of its values), no answers, and without the page's
 * "turn JavaScript on" notice, since the frame runs no script.
 */
export function previewOfVersion(test: TestVersion, content: ContentCache, now: Date): string {
  const rendered = testPage({
    assignmentId: 'preview',
    institutionName: 'Preview',
    test: deliver(test, sampleDelivery(test, randomInt)),
    csrfToken: 'preview',
    deadlineAt: new Date(now.getTime() + test.durationMinutes * 60_000),
    serverNow: now,
    answers: [],
    content,
  });
  return rendered.replace(/<noscript>[\s\S]*?<\/noscript>/, '');
}
