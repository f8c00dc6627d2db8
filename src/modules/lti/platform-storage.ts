import type { AppContext } from '../../platform/context.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { Translator } from '../../platform/i18n/catalogue.js';
import { html } from '../../platform/web/html.js';
import { findLoginState, findPlatformById } from './lti-repo.js';
import { page } from './pages.js';
import { stateCookieName } from './verify-launch.js';

/**
 * Launches in the course's frame without the tool's cookie: the platform-
 * storage flow of 1EdTech's LTI Client Side postMessages. A platform that
 * offers it names its storage frame in the login (`lti_storage_target`:
 * `_parent`, or the name of a frame beside the tool's).
 *
 * - /lti/login still sets the state's cookie, and answers a page whose
 *   script (assets/platform-storage.js) first stores the same binding in the
 *   platform's storage (`lti.put_data`, key = the cookie's name, value = its
 *   value, posted to the platform's origin only), then goes on to the
 *   platform's authorisation URL.
 * - /lti/launch, posted without the cookie (the browser dropped it) for a
 *   login that named a storage target, answers a page whose script reads the
 *   binding back (`lti.get_data`, accepted only from the platform's origin)
 *   and posts the launch again with it. verify-launch.ts then checks it as it
 *   checks a cookie; that post is accepted only from the tool's own page
 *   (browser-binding.ts, postedFromThisOrigin), so a site that learned its
 *   own binding cannot post it in someone else's browser.
 * Without scripts, or when the platform does not answer within 2 s, the page
 * goes on without storage: the cookie alone decides, as before.
 */
export const STORAGE_TIMEOUT_MS = 2000;

/** The login page: store the binding in the platform's storage, then continue to the platform. */
export function loginStoragePage(p: { t: Translator; target: string; platformOrigin: string; key: string; value: string; next: string }): string {
  const { t } = p;
  const title = t.t('lti.opening.title');
  const main = html`<h1>${title}</h1>
<div id="lti-storage" hidden data-mode="put" data-target="${p.target}" data-origin="${p.platformOrigin}" data-key="${p.key}" data-value="${p.value}" data-timeout="${String(STORAGE_TIMEOUT_MS)}"></div>
<p>${t.t('lti.opening.ifNothing')}</p>
<p class="actions"><a class="button primary" id="lti-continue" href="${p.next}">${t.t('lti.opening.continueToSignIn')}</a></p>`;
  return page({ t, title, institutionName: '', main, script: '/lti/assets/platform-storage.js' });
}

/** The launch page: read the binding from the platform's storage, then post the launch again with it. */
export function launchStoragePage(p: { t: Translator; target: string; platformOrigin: string; key: string; idToken: string; state: string }): string {
  const { t } = p;
  const title = t.t('lti.opening.title');
  const main = html`<h1>${title}</h1>
<div id="lti-storage" hidden data-mode="get" data-target="${p.target}" data-origin="${p.platformOrigin}" data-key="${p.key}" data-timeout="${String(STORAGE_TIMEOUT_MS)}"></div>
<form id="lti-continue" method="post" action="/lti/launch">
<input type="hidden" name="id_token" value="${p.idToken}">
<input type="hidden" name="state" value="${p.state}">
<input type="hidden" name="browser_binding" value="">
<p>${t.t('lti.opening.ifNothing')}</p>
<p class="actions"><button class="button primary" type="submit">${t.t('lti.opening.continue')}</button></p>
</form>`;
  return page({ t, title, institutionName: '', main, script: '/lti/assets/platform-storage.js' });
}

/**
 * For a launch posted without any binding: where to read it from, when its
 * login named a storage target and is still pending; else null (the launch
 * goes on to be refused as one from another browser).
 */
export async function storageToRead(ctx: AppContext, state: string): Promise<{ target: string; platformOrigin: string; key: string } | null> {
  const login = await findLoginState(ctx.pool, sha256Hex(state));
  if (!login?.storageTarget || login.expiresAt.getTime() <= ctx.clock.now().getTime()) return null;
  const platform = await findPlatformById(ctx.pool, login.platformId);
  if (!platform) return null;
  return { target: login.storageTarget, platformOrigin: new URL(platform.authLoginUrl).origin, key: stateCookieName(state) };
}
