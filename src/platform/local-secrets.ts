import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from './ids.js';

/**
 * Development defaults for the embedded setup (no DATABASE_URL): the operator
 * token, the signing secret, the demo API key and the embedded PostgreSQL's
 * superuser password are generated once and kept in
 * `ASSAY_DATA_DIR/local-secrets.json` (mode 600) beside the embedded
 * database, so a restart keeps start links and the printed demo key working.
 * The database itself still holds only the key's hash. A file written by an
 * earlier version gets the values it lacks added.
 */
export interface LocalSecrets {
  adminToken: string;
  secret: string;
  demoApiKey?: string;
  /** The demo's test-mode key (`ak_test_…`), kept the same way. */
  demoTestApiKey?: string;
  /** The embedded cluster's superuser password: this data folder's own, never a constant of the code. */
  postgresPassword: string;
}

export function localSecretsPath(dataDir: string): string {
  return path.join(dataDir, 'local-secrets.json');
}

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const file = localSecretsPath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const stored = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalSecrets>) : {};
  const secrets: LocalSecrets = {
    ...stored,
    adminToken: stored.adminToken ?? `adm_${randomBase62(40)}`,
    secret: stored.secret ?? randomBase62(48),
    postgresPassword: stored.postgresPassword ?? randomBase62(40),
  };
  if (Object.keys(secrets).some((k) => stored[k as keyof LocalSecrets] === undefined && secrets[k as keyof LocalSecrets] !== undefined)) {
    saveLocalSecrets(dataDir, secrets);
  }
  return secrets;
}

export function saveLocalSecrets(dataDir: string, secrets: LocalSecrets): void {
  fs.writeFileSync(localSecretsPath(dataDir), JSON.stringify(secrets, null, 2), { mode: 0o600 });
}
