import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './harness.js';
import type { PortalUser } from './portal.js';

/**
 * The portal's authoring JSON routes as the editor calls them: the session
 * cookie, and on a change the session's CSRF token in X-CSRF-Token (unless
 * `csrf` says otherwise; null sends none).
 */
export function portalJson(
  h: Harness,
  user: PortalUser | null,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  csrf?: string | null,
): Promise<LightMyRequestResponse> {
  const token = csrf === undefined ? user?.csrf : csrf;
  return h.app.inject({
    method,
    url,
    headers: {
      ...(user ? { cookie: user.cookie } : {}),
      ...(method !== 'GET' && token ? { 'x-csrf-token': token } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}
