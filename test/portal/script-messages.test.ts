import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { portalJson } from '../helpers/authoring.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { flagsOf, jpeg, proctoredTest, signal, startProctored, webm, type Proctored } from '../helpers/proctoring.js';
import { createPublishedTest } from '../helpers/student.js';
import { QUESTION_TYPES } from '../../src/modules/catalog/question-types/registry.js';

/**
 * The portal's browser scripts speak through the catalogue
 * (window.AssayI18n.t): every `portal.*` key a script a page loads names is
 * in the English catalogue and in the page's #assay-messages block, and the
 * block holds nothing the page's scripts do not use. The scripts are read as
 * served (the question types' editor parts as their one bundle), so a key
 * added to a script but not to its page's list fails here.
 */
const english = JSON.parse(fs.readFileSync(new URL('../../src/platform/i18n/messages/en.json', import.meta.url), 'utf8')) as Record<string, string>;

const start = new Date('2026-03-02T11:00:00.000Z');
const clock = manualClock(start);
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
let h: Harness;
let author: PortalUser;
let reviewer: PortalUser;
let p: Proctored;

beforeAll(async () => {
  h = await createHarness({ clock });
  author = await signedIn(h, 'author', h.a.institutionId);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  // A proctored attempt with a recording, so its record page has the timeline (and its script).
  const testId = await createPublishedTest(h, h.a, proctoredTest('record'));
  p = await startProctored(h, h.a, testId, 'messages-student');
  clock.set(at(31));
  for (const seq of [0, 1]) expect((await p.segment(seq, webm(), { startedAt: at(seq * 10), durationMs: 10_000 })).statusCode).toBe(201);
  expect((await p.snapshot(jpeg(), { takenAt: at(12) })).statusCode).toBe(201);
  flagsOf(await p.heartbeat([signal('cp-0000001', 'copy_paste', 0, at(13), false)]));
});
afterAll(() => h.close());

/** The `portal.*` keys a script's text names (its AssayI18n.t calls and the key tables they read). */
function keysIn(script: string): Set<string> {
  return new Set([...script.matchAll(/['"](portal\.[A-Za-z0-9_.]+)['"]/g)].map((m) => m[1]!));
}

/** A page's scripts as served, its #assay-messages block, and the keys its portal scripts name. */
async function pageParts(user: PortalUser, url: string) {
  const res = await portalGet(h, user, url);
  expect(res.statusCode, res.body).toBe(200);
  const block = /<script type="application\/json" id="assay-messages">([^<]*)<\/script>/.exec(res.body);
  expect(block, 'the page has no #assay-messages block').not.toBeNull();
  const sent = JSON.parse(block![1]!) as { locale: string; messages: Record<string, string> };
  const sources = [...res.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
  const used = new Map<string, string>();
  for (const src of sources) {
    const script = await h.app.inject({ method: 'GET', url: src });
    expect(script.statusCode, src).toBe(200);
    for (const key of keysIn(script.body)) if (!used.has(key)) used.set(key, src);
  }
  return { sources, sent, used };
}

describe("the portal's scripts and the messages their pages send", () => {
  it('finds keys in a script, and only keys', () => {
    expect([...keysIn(`t('portal.editor.remove'); t("portal.timeline.clock"); fetch('/portal/assets/x.js'); t('question.hotspot.most')`)]).toEqual([
      'portal.editor.remove',
      'portal.timeline.clock',
    ]);
  });

  it.each(QUESTION_TYPES.filter((d) => d.scripts.editor).map((d) => [d.type, d] as const))(
    "%s: its editorMessages are exactly the keys its editor part names",
    (_type, d) => {
      const script = fs.readFileSync(d.scripts.editor!, 'utf8');
      expect([...new Set(d.editorMessages ?? [])].sort()).toEqual([...keysIn(script)].sort());
    },
  );

  it.each([
    ['the test editor', 'editor', ['/portal/assets/test-editor.js', '/portal/assets/question-type-editors.js', '/portal/assets/editor-parameters.js']],
    ["a proctored attempt's record (the timeline)", 'record', ['/portal/assets/proctoring-timeline.js']],
    ['the overview (portal.js alone)', 'overview', ['/portal/assets/portal.js']],
  ] as const)('%s: every key its scripts use is in English and sent with the page, and nothing else is sent', async (_name, page, expectedScripts) => {
    let url: string;
    let user: PortalUser;
    if (page === 'editor') {
      const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: AUTO_TEST });
      expect(created.statusCode).toBe(201);
      url = `/portal/tests/${created.json().testId as string}/edit`;
      user = author;
    } else if (page === 'record') {
      url = `/portal/assignments/${p.assignmentId}/proctoring`;
      user = reviewer;
    } else {
      url = '/portal';
      user = reviewer;
    }
    const { sources, sent, used } = await pageParts(user, url);
    for (const script of [...expectedScripts, '/portal/assets/portal.js', '/assets/i18n.js']) expect(sources).toContain(script);
    expect(used.size).toBeGreaterThan(0);
    const notInEnglish = [...used].filter(([key]) => !(key in english)).map(([key, src]) => `${key} (${src})`);
    expect(notInEnglish, 'keys the scripts use that the English catalogue lacks').toEqual([]);
    const notSent = [...used].filter(([key]) => !(key in sent.messages)).map(([key, src]) => `${key} (${src})`);
    expect(notSent, "keys the scripts use that the page's #assay-messages lacks").toEqual([]);
    const unused = Object.keys(sent.messages).filter((key) => !used.has(key));
    expect(unused, 'messages the page sends that none of its scripts uses').toEqual([]);
    for (const [key, message] of Object.entries(sent.messages)) expect(message).toBe(english[key]);
  });
});
