import type { Config } from '../../platform/config.js';
import { createSecretBox, type SecretBox } from './secret-box.js';
import type { UrlPolicy } from './url-guard.js';

/** Derived from the config once per config object; no new fields on the shared context. */
const boxes = new WeakMap<object, SecretBox>();

export function secretBoxFor(config: Readonly<Config>): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    if (!config.secrets || config.secrets.length === 0) throw new Error('webhooks: ASSAY_SECRET is not set');
    box = createSecretBox(config.secrets);
    boxes.set(config, box);
  }
  return box;
}

export function urlPolicyFor(config: Readonly<Config>): UrlPolicy {
  // No DATABASE_URL: the embedded database `npm start` runs, which is development (docs/production.md).
  return { allowInsecure: config.allowInsecureUrls, development: config.databaseUrl === null };
}
