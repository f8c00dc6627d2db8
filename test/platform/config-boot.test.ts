import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The parsing itself is checked without a process in src/platform/config.test.ts; this boots the real entry point.
describe('configuration', () => {
  it('a bad value stops the process at boot with exit code 78 and a message naming the variable', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain('PORT');
  });
});
