import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createSecretBox } from '../../src/modules/webhooks/secret-box.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * `assay reseal-secrets` re-seals the LTI tool's private keys (current and
 * retired) under the first ASSAY_SECRET, so the old secret can be dropped,
 * and its output never holds key material.
 */
const OLD = 'test-secret-0123456789abcdef0123456789abcdef';
const NEW = 'new-secret-9876543210fedcba9876543210fedcba';
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { secrets: [OLD] } });
});
afterAll(() => h.close());

async function reseal(secrets: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const config = freezeConfig({ ...h.ctx.config, secrets });
  const code = await runCli(['reseal-secrets'], { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => ({
    pool: h.pool,
    config,
    local: null,
    close: async () => undefined,
  }));
  return { code, text: out.join('\n') + err.join('\n'), report: out.length > 0 ? JSON.parse(out.join('\n')) : null, stderr: err.join('\n') };
}

const keys = async () =>
  (await h.pool.query<{ kid: string; private_key_sealed: string }>('SELECT kid, private_key_sealed FROM lti_tool_keys ORDER BY created_at')).rows;

describe('assay reseal-secrets and the LTI tool keys', () => {
  it('re-seals the current and the retired tool key under the first secret; a second run changes nothing', async () => {
    expect((await h.admin('GET', '/lti/jwks')).statusCode).toBe(200); // makes the first key
    const rotated = await h.admin('POST', '/api/admin/v1/lti/tool-keys/rotate');
    expect(rotated.statusCode).toBe(200);
    const before = await keys();
    expect(before).toHaveLength(2);

    const newOnly = createSecretBox([NEW]);
    for (const k of before) expect(() => newOnly.open(k.private_key_sealed, `lti-tool-key:${k.kid}`)).toThrow();

    const run = await reseal([NEW, OLD]);
    expect(run.code).toBe(0);
    expect(run.report.ltiToolKeys).toEqual({ keys: 2, resealed: 2, current: 0, unopenable: [] });
    const after = await keys();
    for (const [i, k] of after.entries()) {
      const oldBox = createSecretBox([OLD]);
      expect(newOnly.open(k.private_key_sealed, `lti-tool-key:${k.kid}`)).toBe(oldBox.open(before[i]!.private_key_sealed, `lti-tool-key:${k.kid}`));
      expect(newOnly.open(k.private_key_sealed, `lti-tool-key:${k.kid}`)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }
    // The output names key ids, never a key.
    expect(run.text).not.toMatch(/PRIVATE KEY|"d":|v2\./);

    const again = await reseal([NEW, OLD]);
    expect(again.report.ltiToolKeys).toEqual({ keys: 2, resealed: 0, current: 2, unopenable: [] });
    expect(await keys()).toEqual(after);
  });

  it('reports a tool key that no configured secret opens, and leaves it untouched', async () => {
    const before = await keys();
    const run = await reseal(['third-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']);
    expect(run.report.ltiToolKeys.unopenable).toEqual(before.map((k) => k.kid));
    expect(run.stderr).toMatch(/LTI tool key\(s\).*keep the old secrets/);
    expect(await keys()).toEqual(before);
  });
});
