import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { Harness } from '../helpers/harness.js';
import { SHOTS, VIEWPORTS, seriousAxeViolations } from './browser-env.js';

/** What the image questions' browser tests share: the keyboard walk, the stored answers, the layout checks with a screenshot. */

export { tabTo } from './browser-env.js';

export async function storedAnswers(h: Harness, assignmentId: string): Promise<Record<string, unknown>> {
  const items = (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string; answer: unknown }>;
  return Object.fromEntries(items.map((i) => [i.questionId, i.answer]));
}

/** No serious axe violation, no sideways scroll, the image loaded and its outlines sized; the question's screenshot saved. */
export async function checkLayout(page: Page, size: keyof typeof VIEWPORTS, questionId: string, type: string): Promise<void> {
  await expect.poll(() => page.locator('.region-picture img').evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  expect(await page.locator('.region-overlay').getAttribute('viewBox')).toMatch(/^0 0 \d+ \d+$/);
  expect(await seriousAxeViolations(page), size).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.locator(`fieldset[data-question-id="${questionId}"]`).screenshot({ path: path.join(SHOTS, `question-${type}-${size}.png`) });
}
