import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * What the form editor's Translations panel is given by the server: the
 * editor page's data and every draft answer of the portal's authoring routes
 * carry `translatable` (the paths translatable.ts names for the draft as
 * saved), and the draft save route re-hashes an edited translation, so a
 * text out of date stops being so once it is edited and saved.
 */
let h: Harness;
let author: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
});
afterAll(() => h.close());

const content = (prompt: string, translations?: unknown) => ({
  title: 'Capitals',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  language: 'en',
  sections: [
    {
      id: 's1',
      title: 'Europe',
      questions: [
        { id: 'q1', type: 'single_choice', prompt, points: 1, options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
        // No id yet (as the form makes it): not translatable until it has one.
        { type: 'short_text', prompt: 'Capital of Spain?', points: 1, acceptedAnswers: ['Madrid'] },
      ],
    },
  ],
  ...(translations ? { translations } : {}),
});

describe('the Translations panel’s data', () => {
  it('lists the translatable paths on the page and in each draft answer, and a stale text is fresh again once edited', async () => {
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: content('Capital of France?') });
    expect(created.statusCode).toBe(201);
    const { testId } = created.json();
    const paths = ['title', 'sections.s1.title', 'questions.q1.prompt', 'questions.q1.options.a.text', 'questions.q1.options.b.text'];
    expect(created.json().translatable).toEqual(paths);

    const page = await h.app.inject({ method: 'GET', url: `/portal/tests/${testId}/edit`, headers: { cookie: author.cookie } });
    expect(page.statusCode).toBe(200);
    const data = JSON.parse(/<script type="application\/json" id="editor-data">([\s\S]*?)<\/script>/.exec(page.body)![1]!);
    expect(data.translatable).toEqual(paths);
    expect(data.translationStatus).toEqual({});
    expect(data.locales.find((l: { tag: string }) => l.tag === 'ar')).toEqual({ tag: 'ar', name: 'Arabic', native: 'العربية', dir: 'rtl' });
    expect(page.body).toContain('"portal.editor.translations.heading":"Translations"');
    expect(page.body).toContain('/portal/assets/editor-translations.js');

    const french = { title: 'Capitales', questions: { q1: { prompt: 'Capitale de la France ?' } } };
    let saved = await portalJson(h, author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: 1, content: content('Capital of France?', { fr: french }) });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().translationStatus.fr).toEqual({ missing: ['sections.s1.title', 'questions.q1.options.a.text', 'questions.q1.options.b.text'], stale: [] });

    // The source prompt changes, the translation is saved as it was: out of date.
    saved = await portalJson(h, author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: 2, content: content('Which city is the capital of France?', { fr: french }) });
    expect(saved.json().translationStatus.fr.stale).toEqual(['questions.q1.prompt']);
    const reread = (await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    expect(reread.translationStatus.fr.stale).toEqual(['questions.q1.prompt']);
    expect(reread.translatable).toEqual(paths);

    // Edited, it takes the current source's hash; the question given an id is translatable from now on.
    const edited = content('Which city is the capital of France?', { fr: { ...french, questions: { q1: { prompt: 'Quelle ville est la capitale de la France ?' } } } });
    (edited.sections[0]!.questions[1] as Record<string, unknown>).id = 'q2';
    saved = await portalJson(h, author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: 3, content: edited });
    expect(saved.json().translationStatus.fr.stale).toEqual([]);
    expect(saved.json().translatable).toEqual([...paths, 'questions.q2.prompt']);
  });
});
