import type { Page } from 'playwright-core';
import type { PortalSeed } from './portal-seed.js';

/**
 * Every portal page, as the role that uses it, on the seeded institution:
 * the list the screenshot script captures and the accessibility test checks.
 * `act` brings the page into the state worth showing (a key just created).
 */
export interface PortalPage {
  name: string;
  path: string;
  who: 'admin' | 'reviewer' | 'viewer' | 'operator' | null;
  act?: (page: Page) => Promise<void>;
}

export function portalPages(seed: PortalSeed): PortalPage[] {
  const on = `institution=${seed.institutionId}`;
  return [
    { name: 'sign-in', path: '/portal/sign-in', who: null },
    { name: 'overview', path: '/portal', who: 'admin' },
    { name: 'assignments', path: '/portal/assignments', who: 'viewer' },
    { name: 'assignments-filtered', path: `/portal/assignments?status=completed&testId=${seed.algebraTestId}&q=student-0`, who: 'viewer' },
    { name: 'assignments-all-modes', path: '/portal/assignments?mode=all', who: 'viewer' },
    { name: 'assignment', path: `/portal/assignments/${seed.completedId}`, who: 'viewer' },
    { name: 'marking-queue', path: '/portal/marking', who: 'reviewer' },
    { name: 'marking-item', path: `/portal/marking/${seed.markingItemId}`, who: 'admin' },
    {
      name: 'api-keys',
      path: '/portal/api-keys',
      who: 'admin',
      act: async (page) => {
        await page.getByLabel('Label').fill('Reporting job');
        await page.getByRole('button', { name: 'Create API key' }).click();
        await page.getByRole('heading', { name: /Your new API key/ }).waitFor();
      },
    },
    { name: 'callback-domains', path: '/portal/callback-domains', who: 'admin' },
    { name: 'webhooks', path: '/portal/webhooks', who: 'admin' },
    { name: 'webhook-endpoint', path: `/portal/webhooks/${seed.endpointId}`, who: 'admin' },
    { name: 'staff', path: '/portal/staff', who: 'admin' },
    { name: 'audit-log', path: '/portal/audit', who: 'admin' },
    { name: 'institutions', path: '/portal/institutions', who: 'operator' },
    { name: 'institution', path: `/portal/institutions/${seed.institutionId}`, who: 'operator' },
    { name: 'operator-webhooks', path: `/portal/webhooks?${on}`, who: 'operator' },
    { name: 'tests', path: '/portal/tests', who: 'operator' },
    {
      name: 'test-editor',
      path: `/portal/tests/${seed.writingTestId}`,
      who: 'operator',
      act: async (page) => {
        await page.frameLocator('iframe.preview-frame').getByRole('heading', { level: 1 }).waitFor();
      },
    },
    {
      name: 'test-editor-errors',
      path: '/portal/tests/new',
      who: 'operator',
      act: async (page) => {
        const editor = page.getByLabel('Test JSON');
        const json = (await editor.inputValue()).replace('"correctOptionId": "b"', '"correctOptionId": "z"').replace('"durationMinutes": 30', '"durationMinutes": 0');
        await editor.fill(json);
        await page.getByRole('button', { name: 'Create test' }).click();
        await page.getByRole('heading', { name: /problems? in the JSON/ }).waitFor();
      },
    },
  ];
}
