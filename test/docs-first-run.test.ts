import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a first-time user reads before anything runs: a README short enough
 * to read, with the benchmark figures a link away; an SDK README that
 * agrees with the service on the Node version and on the keys `npm start`
 * prints; and an example-app README that does not assume Assay's port.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('the README', () => {
  it('is under 25 KB and links docs/performance.md, which holds the figures', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThan(25 * 1024);
    expect(read('README.md')).toMatch(/\]\(docs\/performance\.md(#[^)]*)?\)/);
    expect(fs.existsSync(path.join(ROOT, 'docs/performance.md'))).toBe(true);
  });

  it('keeps the quick start to npm install && npm start, and npm test', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});

describe('the SDK README', () => {
  const sdk = read('packages/partner-sdk/README.md');
  const rootEngine = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node.replace(/^>=/, '');

  it('names the Node version the Assay checkout requires for running the service', () => {
    expect(sdk).toContain(`Node ${rootEngine}`);
  });

  it('takes the test key from npm start\'s banner instead of asking the operator for one', () => {
    const quickStart = sdk.slice(sdk.indexOf('## Five-minute quick start'), sdk.indexOf('**2.'));
    expect(quickStart).toContain('Demo test-mode API key');
    expect(quickStart).not.toMatch(/ask the operator for a test key/);
  });
});

describe('the example app README', () => {
  it('does not hardcode Assay on port 3000 in its commands: they use $ASSAY_BASE_URL, and it says how the port is chosen', () => {
    const readme = read('examples/partner-app/README.md');
    const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    expect(commands).not.toMatch(/localhost:3000\/api/);
    expect(commands).toContain('$ASSAY_BASE_URL/api/admin/v1/institutions');
    expect(readme).toMatch(/`PORT`[^.]*default 3000/);
  });
});
