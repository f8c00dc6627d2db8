import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Pool } from '../../src/platform/db.js';
import { PORTAL_COOKIE, createPortalSession } from '../../src/modules/staff/portal-sessions.js';
import type { PortalUser } from '../helpers/portal.js';
import { SHOTS, VIEWPORTS, seriousAxeViolations } from './browser-env.js';

/** Signs the browser context in to the portal as `user`, with a session made directly (no mail). */
export async function signInPortal(pool: Pool, now: Date, context: BrowserContext, user: PortalUser): Promise<void> {
  const { sessionId } = await createPortalSession(pool, { staffId: user.staffId, method: 'link', now });
  await context.clearCookies();
  await context.addCookies([{ name: PORTAL_COOKIE, value: sessionId, domain: '127.0.0.1', path: '/portal', httpOnly: true, sameSite: 'Strict' }]);
}

/** axe (its serious findings added to `axeProblems`), nothing wider than the viewport, and a screenshot as tall as the page. */
export async function checkPortalPage(page: Page, name: string, size: keyof typeof VIEWPORTS, axeProblems: string[]): Promise<void> {
  for (const v of await seriousAxeViolations(page)) axeProblems.push(`${name} ${size}: ${v.id} (${v.impact}) ${v.help}`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${size}`).toBeLessThanOrEqual(VIEWPORTS[size].width);
  await page.evaluate(() => window.scrollTo(0, 0));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: VIEWPORTS[size].width, height: Math.min(height, 6000) });
  await page.waitForTimeout(150);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `portal-${name}-${size}.png`) });
  await page.setViewportSize(VIEWPORTS[size]);
}
