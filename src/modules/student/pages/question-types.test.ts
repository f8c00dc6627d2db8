import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../catalog/delivery.js';
import type { Score } from '../../lifecycle/score.js';
import type { StoredAnswer } from '../../attempts/find-attempt.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import type { SubmittedStatus } from '../../lifecycle/state-machine.js';
import { completionPage } from './completion-page.js';
import { introPage } from './intro-page.js';
import { acceptedTypesText, formatBytes, type UploadedFile } from './question-parts.js';
import { testPage } from './test-page.js';
import { pageTestVersion, sectionedPageTest } from '../../../../test/helpers/student-pages.js';

// The markup of sections and of the matching, ordering, fill_blanks and file_upload fields. Their behaviour
// (moves, autosave, upload, restore on reload) is exercised by keyboard in test/browser/question-types.test.ts.

const IDENTITY: Delivery = sectionedPageTest().delivery;
const withDelivery = (over: Partial<Delivery>) => sectionedPageTest({ ...IDENTITY, ...over });

function page(test = sectionedPageTest(), answers: Array<[string, StoredAnswer['value']]> = [], files?: Record<string, UploadedFile>): string {
  return testPage({
    assignmentId: 'asg_1',
    institutionName: 'Northfield',
    test,
    csrfToken: 'csrf-token',
    deadlineAt: new Date('2026-01-01T10:30:00Z'),
    serverNow: new Date('2026-01-01T10:00:00Z'),
    answers: answers.map(([questionId, value]) => ({ questionId, value, version: 1 }) as StoredAnswer),
    ...(files ? { files } : {}),
  });
}

/** The markup of one question's fieldset. */
function block(html: string, questionId: string): string {
  const m = new RegExp(`<fieldset class="question"[^>]*data-question-id="${questionId}"[\\s\\S]*?</fieldset>`).exec(html);
  if (!m) throw new Error(`no fieldset for ${questionId}`);
  return m[0];
}

const stateOf = (html: string) => JSON.parse(/<script type="application\/json" id="assay-state">(.*?)<\/script>/s.exec(html)![1]!);

describe('sections on the test page', () => {
  it('renders each section as a titled <section> with its instructions, question numbers running on', () => {
    const html = page();
    expect(html.match(/<section class="test-section"/g)).toHaveLength(2);
    expect(html).toContain('<h2 class="section-title" id="section-1-title">Part A: &lt;Facts&gt;</h2>');
    expect(html).toContain('<p class="section-instructions">Answer both.\nTake care.</p>');
    expect(html).toContain('<h2 class="section-title" id="section-2-title">Part B</h2>');
    // Part B starts with question 3.
    expect(html).toMatch(/<section class="test-section" aria-labelledby="section-2-title">\s*<h2[^>]*>Part B<\/h2>\s*<fieldset class="question" id="question-3" data-question-id="or" data-n="3"/);
    expect(block(html, 'fu')).toContain('<span class="question-number">Question 5</span>');
  });

  it('groups the navigator links by section, under a heading that labels each list', () => {
    const html = page(sectionedPageTest(), [['ma', { fr: 'paris' }]]);
    const nav = /<nav class="navigator"[\s\S]*?<\/nav>/.exec(html)![0];
    expect(nav).toContain('<h3 class="nav-section" id="nav-section-1">Part A: &lt;Facts&gt;</h3>');
    expect(nav).toMatch(/<ol start="1" aria-labelledby="nav-section-1">\s*<li><a href="#question-1"[\s\S]*?href="#question-2"[\s\S]*?<\/ol>/);
    expect(nav).toMatch(/<ol start="3" aria-labelledby="nav-section-2">\s*<li><a href="#question-3"[\s\S]*?href="#question-5"[\s\S]*?<\/ol>/);
    // A matching answer with one stem matched counts as answered.
    expect(nav).toContain('<a href="#question-2" id="nav-2" data-answered="yes">');
    expect(nav).toContain('1 of 5 answered');
  });

  it('shows only the questions drawn for the candidate, in the drawn order', () => {
    const html = page(withDelivery({ sections: [{ sectionId: 'sa', questionIds: ['ma'] }, { sectionId: 'sb', questionIds: ['fu', 'or', 'fb'] }] }));
    expect(html).not.toContain('data-question-id="sc"');
    expect(html).toMatch(/id="question-1" data-question-id="ma"/);
    expect(html).toMatch(/id="question-2" data-question-id="fu"/);
    expect(html).toMatch(/id="question-4" data-question-id="fb"/);
    expect(stateOf(html).questions.map((q: { id: string }) => q.id)).toEqual(['ma', 'fu', 'or', 'fb']);
  });

  it('leaves a flat test without sections or grouped navigation', () => {
    const html = page(pageTestVersion('none'));
    expect(html).not.toContain('test-section');
    expect(html).not.toContain('nav-section');
    expect(html).toMatch(/<h2 id="navigator-title">Questions<\/h2>\s*<p id="answered-count">0 of 1 answered<\/p>\s*<ol>\s*<li><a href="#question-1" id="nav-1"/);
    expect(html).toMatch(/<div id="answers" class="questions">\s*<fieldset class="question" id="question-1"/);
  });

  it('says on the intro page how many sections there are, and nothing of sections for a flat test', () => {
    const intro = (test: TestVersion) => introPage({ assignmentId: 'asg_1', institutionName: 'N', test, csrfToken: 't', dueAt: null });
    expect(intro(sectionedPageTest())).toContain('<div><dt>Sections</dt><dd>2</dd></div>');
    expect(intro(pageTestVersion('none'))).not.toContain('Sections');
  });
});

describe('shown orders', () => {
  it("renders a shuffled choice question's options in the candidate's order", () => {
    const html = block(page(withDelivery({ optionOrder: { sc: ['b', 'a', 'c'] } })), 'sc');
    const order = [...html.matchAll(/<label for="q1-o\d">([^<]+)<\/label>/g)].map((m) => m[1]);
    expect(order).toEqual(['Beta', 'Alpha', 'None of these']);
  });

  it('renders ordering items in the shown order until the student has moved one, then in the saved order', () => {
    const shown = block(page(withDelivery({ itemOrder: { or: ['three', 'one', 'two'] } })), 'or');
    expect([...shown.matchAll(/data-item-id="(\w+)"/g)].map((m) => m[1])).toEqual(['three', 'one', 'two']);
    expect(shown).toContain('data-ordered="no"');

    const saved = block(page(withDelivery({ itemOrder: { or: ['three', 'one', 'two'] } }), [['or', ['two', 'three', 'one']]]), 'or');
    expect([...saved.matchAll(/data-item-id="(\w+)"/g)].map((m) => m[1])).toEqual(['two', 'three', 'one']);
    expect(saved).toContain('data-ordered="yes"');
  });
});

describe('the added question types', () => {
  it('matching: a select per stem, labelled by the stem text, starting with an empty Choose…, the saved match selected', () => {
    const html = block(page(sectionedPageTest(), [['ma', { it: 'rome' }]]), 'ma');
    expect(html).toContain('<label for="q2-m1">France</label><select id="q2-m1" data-stem-id="fr">\n<option value="">Choose…</option>');
    expect(html).toContain('<label for="q2-m2">Italy &lt;IT&gt;</label><select id="q2-m2" data-stem-id="it">');
    expect(html).toContain('<option value="rome" selected>Rome</option>');
    expect(html.match(/ selected/g)).toHaveLength(1);
  });

  it('ordering: Move up / Move down buttons named with the item text, the ends aria-disabled, a polite live region', () => {
    const html = block(page(withDelivery({ itemOrder: { or: ['two', 'three', 'one'] } })), 'or');
    const names = [...html.matchAll(/aria-label="(Move (?:up|down): \w+)"/g)].map((m) => m[1]);
    expect(names).toEqual(['Move up: Two', 'Move down: Two', 'Move up: Three', 'Move down: Three', 'Move up: One', 'Move down: One']);
    expect(html).toMatch(/aria-label="Move up: Two" aria-disabled="true"/);
    expect(html).toMatch(/aria-label="Move down: One" aria-disabled="true"/);
    expect(html.match(/aria-disabled="true"/g)).toHaveLength(2);
    expect(html).toContain('role="status" aria-live="polite"');
    expect(html).not.toContain('draggable');
  });

  it('fill_blanks: the escaped text with a field per blank named Blank 1, Blank 2 in reading order, saved values restored', () => {
    const html = block(page(sectionedPageTest(), [['fb', { t: '99 <x>', state: 'gas' }]]), 'fb');
    expect(html).toContain('Water boils at <input type="text" class="blank" id="q4-b1" data-blank-id="t" aria-label="Blank 1" value="99 &lt;x&gt;"');
    expect(html).toContain(' degrees &lt;C&gt;.\nIt is <select class="blank" id="q4-b2" data-blank-id="state" aria-label="Blank 2"><option value="">Choose…</option>');
    expect(html).toContain('<option value="gas" selected>a gas</option>');
    expect(html).not.toContain('{{');
  });

  it('file_upload: an input labelled Your file with the accepted types and limit, and no file shown before an upload', () => {
    const html = block(page(), 'fu');
    expect(html).toContain('<label class="answer-label" for="q5-file">Your file</label>');
    expect(html).toContain('<p class="hint" id="q5-file-hint">PDF or PNG, up to 2 MB.</p>');
    expect(html).toMatch(/<input type="file" id="q5-file" class="file-input" accept="application\/pdf,image\/png" aria-describedby="q5-file-hint q5-file-error">/);
    expect(html).toContain('<div class="file-saved" hidden>');
    expect(html).toContain('<button type="button" class="button file-remove">Remove file</button>');
  });

  it('file_upload: the uploaded file named with its size and a Remove file button after a reload, and in the page state', () => {
    const file = { fileId: 'fil_1', fileName: 'report <final>.pdf', contentType: 'application/pdf', bytes: 1_572_864 };
    const html = page(sectionedPageTest(), [['fu', { fileId: 'fil_1' }]], { fu: file });
    const fu = block(html, 'fu');
    expect(fu).toContain('data-file-id="fil_1"');
    expect(fu).toContain('<div class="file-saved">\n<p class="file-current">Your file: <span class="file-name">report &lt;final&gt;.pdf</span> (<span class="file-size">1.5 MB</span>)</p>');
    expect(fu).toContain('<button type="button" class="button file-remove">Remove file</button>');
    expect(stateOf(html).files).toEqual({ fu: file });
    expect(html).toContain('<a href="#question-5" id="nav-5" data-answered="yes">');
  });

  it('file_upload: a file map entry that is not the saved answer (cleared since) is not shown', () => {
    const html = block(page(sectionedPageTest(), [['fu', null]], { fu: { fileId: 'fil_1', fileName: 'a.pdf', contentType: 'application/pdf', bytes: 10 } }), 'fu');
    expect(html).toContain('data-file-id=""');
    expect(html).toContain('<div class="file-saved" hidden>');
  });

  it('names accepted types and sizes in words', () => {
    expect(acceptedTypesText(['application/pdf'])).toBe('PDF');
    expect(acceptedTypesText(['application/pdf', 'image/png', 'image/jpeg'])).toBe('PDF, PNG or JPEG');
    expect(acceptedTypesText(['application/x-custom'])).toBe('application/x-custom');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(820)).toBe('820 bytes');
    expect(formatBytes(14 * 1024 + 300)).toBe('14 KB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
  });
});

describe('section scores on the completion page', () => {
  const score: Score = {
    points: 6,
    maxPoints: 12,
    percent: 50,
    passed: null,
    gradingStatus: 'final',
    markedAt: '2026-01-01T11:00:00Z',
    sections: [
      { sectionId: 'sa', title: 'Part A: <Facts>', points: 1, maxPoints: 3, percent: 33.33 },
      { sectionId: 'sb', title: 'Part B', points: 5, maxPoints: 9, percent: 55.56 },
    ],
  };
  const done = (status: SubmittedStatus, s: Score | null) =>
    completionPage({ institutionName: 'N', test: sectionedPageTest(), status, submittedAt: null, score: s, returnUrl: 'https://lms.example/back' });

  it('shows a captioned table of each section with points of maximum and percent once the result is visible', () => {
    const html = done('completed', score);
    expect(html).toContain('<caption>Your score in each section</caption>');
    expect(html).toContain('<tr><th scope="row">Part A: &lt;Facts&gt;</th><td>1 of 3</td><td>33.33%</td></tr>');
    expect(html).toContain('<tr><th scope="row">Part B</th><td>5 of 9</td><td>55.56%</td></tr>');
  });

  it('shows no table for a flat score, nor while marking is in progress', () => {
    const { sections: _omit, ...flat } = score;
    expect(done('completed', flat)).not.toContain('<table');
    expect(done('marking', score)).not.toContain('<table');
  });
});
