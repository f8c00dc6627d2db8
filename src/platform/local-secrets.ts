import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from './ids.js';

/**
 * Development defaults for the embedded setup (no DATABASE_URL): the operator
 * token, the signing secret and the demo API key are generated once and kept
 * in `ASSAY_DATA_DIR/local-secrets.json` (mode 600) beside the embedded
 * database, so a restart keeps start links and the printed demo key working.
 * The database itself still holds only the key's hash.
 */
export interface LocalSecrets {
  adminToken: string;
  secret: string;
  demoApiKey?: string;
}

export function localSecretsPath(dataDir: string): string {
  return path.join(dataDir, 'local-secrets.json');
}

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const file = localSecretsPath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalSecrets;
  const secrets: LocalSecrets = { adminToken: `adm_${randomBase62(40)}`, secret: randomBase62(48) };
  saveLocalSecrets(dataDir, secrets);
  return secrets;
}

export function saveLocalSecrets(dataDir: string, secrets: LocalSecrets): void {
  fs.writeFileSync(localSecretsPath(dataDir), JSON.stringify(secrets, null, 2), { mode: 0o600 });
}
