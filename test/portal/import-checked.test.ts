import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * The Import page after **Check only**: **Import this file** imports the
 * checked file without choosing it again (kept for its checker only, 30
 * minutes); a CSV's problems and imported rows show each row's prompt; the
 * formats are explained on the page, not by naming files of the repository.
 */
let h: Harness;
let author: PortalUser;
let otherAuthor: PortalUser;
let authorB: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
  otherAuthor = await signedIn(h, 'author', h.a.institutionId);
  authorB = await signedIn(h, 'author', h.b.institutionId);
});
afterAll(() => h.close());

async function postImport(user: PortalUser, fields: Record<string, string>, file?: { name: string; bytes: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.bytes]), file.name);
  const req = new Request('http://portal.test/portal/tests/import', { method: 'POST', body: form });
  return h.app.inject({
    method: 'POST',
    url: `/portal/tests/import?csrf=${user.csrf}`,
    headers: { 'content-type': req.headers.get('content-type')!, cookie: user.cookie },
    payload: Buffer.from(await req.arrayBuffer()),
  });
}
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
const stashIn = (body: string) => /name="stash" value="([A-Za-z0-9]+)"/.exec(body)?.[1];
const CSV = 'type,prompt,options,correct\nsingle_choice,Which planet is the largest of the eight?,Mars|Jupiter,Jupiter\nnumeric,What is 7 × 8?,,56\n';

describe('Import this file, after Check only', () => {
  it('imports the checked file with the title given at the check, once; the page offers it only after a check', async () => {
    expect((await portalGet(h, author, '/portal/tests/import')).body).not.toContain('Import this file');
    const before = await countTests();
    const checked = await postImport(author, { dryRun: '1', title: 'Planets' }, { name: 'planets.csv', bytes: CSV });
    expect(checked.statusCode).toBe(200);
    expect(checked.body).toContain('The file is kept for 30 minutes');
    expect(checked.body).toMatch(/<input type="hidden" name="title" value="Planets">/);
    const token = stashIn(checked.body)!;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(await countTests()).toBe(before);

    const imported = await postImport(author, { stash: token, title: 'Planets' });
    expect(imported.statusCode).toBe(201);
    expect(imported.body).toContain('Imported <code>planets.csv</code> as the draft test “Planets” with 2 questions.');
    expect(await countTests()).toBe(before + 1);
    // Used once: the kept file is gone.
    const again = await postImport(author, { stash: token });
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('The checked file is no longer kept');
    expect(await countTests()).toBe(before + 1);
  });

  it("another person's token, or another institution's, finds nothing: 400, nothing created", async () => {
    const token = stashIn((await postImport(author, { dryRun: '1' }, { name: 'planets.csv', bytes: CSV })).body)!;
    const before = await countTests();
    for (const user of [otherAuthor, authorB]) {
      const res = await postImport(user, { stash: token });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('The checked file is no longer kept');
    }
    expect((await postImport(author, { stash: 'not-a-token' })).statusCode).toBe(400);
    expect(await countTests()).toBe(before);
    // Still there for the person who checked it.
    expect((await postImport(author, { stash: token })).statusCode).toBe(201);
  });

  it('a kept file older than 30 minutes is refused', async () => {
    const token = stashIn((await postImport(author, { dryRun: '1' }, { name: 'planets.csv', bytes: CSV })).body)!;
    const root = path.join(h.ctx.config.dataDir, 'storage', 'import-stash', h.a.institutionId, author.staffId);
    const old = new Date(Date.now() - 31 * 60_000);
    for (const f of fs.readdirSync(root).filter((n) => n.startsWith(token))) fs.utimesSync(path.join(root, f), old, old);
    const before = await countTests();
    expect((await postImport(author, { stash: token })).statusCode).toBe(400);
    expect(await countTests()).toBe(before);
  });
});

describe('when the file cannot be kept', () => {
  it('the check still reports, without Import this file, and says to choose the file again', async () => {
    const user = await signedIn(h, 'author', h.a.institutionId);
    // A file where the person's folder would be: the store cannot write there.
    const parent = path.join(h.ctx.config.dataDir, 'storage', 'import-stash', h.a.institutionId);
    fs.mkdirSync(parent, { recursive: true });
    fs.writeFileSync(path.join(parent, user.staffId), 'in the way');
    const res = await postImport(user, { dryRun: '1' }, { name: 'planets.csv', bytes: CSV });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('2 questions would be imported. Nothing was created; choose the file again without “Check only” to import it.');
    expect(res.body).not.toContain('Import this file');
  });
});

describe("a CSV's rows named by their prompts", () => {
  it("the check's imported rows show each prompt", async () => {
    const res = await postImport(author, { dryRun: '1' }, { name: 'planets.csv', bytes: CSV });
    expect(res.body).toMatch(/<th[^>]*>Prompt<\/th>/);
    expect(res.body).toContain('Which planet is the largest of the eight?');
  });

  it('each problem shows its row’s prompt, shortened, beside the row and column', async () => {
    const long = `Explain ${'very '.repeat(30)}carefully why the sky is blue`;
    const bad = `type,prompt,options,correct\nsingle_choice,Which planet?,Mars|Jupiter,Saturn\nnumeric,"${long}",,abc\n`;
    const res = await postImport(author, { dryRun: '1' }, { name: 'bad.csv', bytes: bad });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<code>row 2, correct</code> <q class="row-prompt">Which planet?</q>: &quot;Saturn&quot; is neither an option number');
    const shown = /<code>row 3, correct<\/code> <q class="row-prompt">([^<]*)<\/q>/.exec(res.body)![1]!;
    expect(shown.length).toBeLessThanOrEqual(80);
    expect(shown).toMatch(/^Explain very very .*…$/);
  });
});

describe('the formats in words', () => {
  it('the Import page explains both formats and names no repository file; the LTI page lists each LMS’s fields', async () => {
    const page = (await portalGet(h, author, '/portal/tests/import')).body;
    expect(page).toContain('What a file may hold');
    expect(page).toContain('Lists (options, accepted answers, MIME types) are separated by');
    expect(page).not.toMatch(/docs\/[a-z-]+\.md/);
    const admin = await signedIn(h, 'admin', h.a.institutionId);
    const lti = await portalGet(h, admin, '/portal/lti');
    expect(lti.statusCode).toBe(200);
    expect(lti.body).toContain('Canvas (Admin → Developer Keys → LTI Key): login URL in “OpenID Connect Initiation Url”');
    expect(lti.body).not.toContain('the LTI guide');
  });
});
