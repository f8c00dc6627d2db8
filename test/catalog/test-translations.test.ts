import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

/** A test's content languages through the operator API and the drafts (docs/test-format.md "Languages"). */
const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const SOURCE: TestInput = {
  title: 'Capitals',
  description: 'Two questions',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  language: 'en',
  sections: [
    {
      id: 's1',
      title: 'Europe',
      instructions: 'Answer both.',
      questions: [
        { id: 'q1', type: 'single_choice', prompt: 'Capital of France?', points: 1, options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
        { id: 'q2', type: 'fill_blanks', prompt: 'Fill in', points: 1, text: 'Rome is in {{b1}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['Italy'] }] },
      ],
    },
  ],
};
const FRENCH = {
  title: 'Capitales',
  sections: { s1: { title: 'Europe', instructions: 'Répondez aux deux.' } },
  questions: { q1: { prompt: 'Capitale de la France ?', 'options.a.text': 'Paris', 'options.b.text': 'Lyon' }, q2: { prompt: 'Complétez', text: 'Rome est en {{b1}}.' } },
};

describe('test translations', () => {
  it('stores a translation, reads it back with what is missing, and leaves a test without one reading as before', async () => {
    const res = await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: { fr: FRENCH } });
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t.language).toBe('en');
    expect(t.translations).toEqual({ fr: FRENCH });
    expect(t.translationStatus).toEqual({ fr: { missing: ['description'], stale: [] } });
    const plain = (await h.admin('POST', `${A}/tests`, { ...SOURCE, language: undefined })).json();
    expect(Object.keys(plain)).not.toContain('language');
    expect(Object.keys(plain)).not.toContain('translations');
    expect(Object.keys(plain)).not.toContain('translationStatus');
  });

  it('marks a text stale once its source changes, until the translation is edited', async () => {
    const t = (await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: { fr: FRENCH } })).json();
    const changed = structuredClone(SOURCE);
    const q1 = changed.sections![0]!.questions[0] as { prompt: string };
    q1.prompt = 'Which city is the capital of France?';
    const after = (await h.admin('PUT', `${A}/tests/${t.testId}`, { ...changed, translations: { fr: FRENCH } })).json();
    expect(after.translationStatus.fr.stale).toEqual(['questions.q1.prompt']);
    const edited = { ...FRENCH, questions: { ...FRENCH.questions, q1: { ...FRENCH.questions.q1, prompt: 'Quelle ville est la capitale de la France ?' } } };
    const fixed = (await h.admin('PUT', `${A}/tests/${t.testId}`, { ...changed, translations: { fr: edited } })).json();
    expect(fixed.translationStatus.fr.stale).toEqual([]);
    // The versions' changes name the translation edited, and only a change of its texts: the first update changed the source alone.
    const diff = (v: number) => h.admin('GET', `${A}/tests/${t.testId}/versions/${v}/diff`).then((r) => r.json().changes);
    expect(await diff(2)).toEqual([{ kind: 'question_changed', questionId: 'q1', fields: ['prompt'] }]);
    expect(await diff(3)).toEqual([{ kind: 'test_changed', fields: ['translations'] }]);
    expect((await diff(1))[0]).toEqual({ kind: 'test_changed', fields: ['title', 'description', 'language', 'translations'] });
  });

  it('refuses malformed locales, the test’s own language, unknown ids and paths, over-long texts and a broken fill-in, naming each', async () => {
    const res = await h.admin('POST', `${A}/tests`, {
      ...SOURCE,
      translations: {
        'fr-ca': { title: 'Capitales' },
        en: { title: 'Capitals again' },
        'not a tag': { title: 'x' },
        de: {
          sections: { s9: { title: 'Europa' } },
          questions: { q1: { 'options.z.text': 'Z', correctOptionId: 'b' }, q2: { text: 'Rom liegt in Italien.' }, q9: { prompt: 'x' } },
        },
      },
    });
    expectError(res, 400, 'invalid_request');
    const fields = detailFields(res);
    expect(fields).toEqual(
      expect.arrayContaining([
        'translations.fr-ca',
        'translations.en',
        'translations.not a tag',
        'translations.de.sections.s9.title',
        'translations.de.questions.q1.options.z.text',
        'translations.de.questions.q1.correctOptionId',
        'translations.de.questions.q9.prompt',
        'translations.de.questions.q2',
      ]),
    );
    const messages = (res.json().error.details as Array<{ field: string; message: string }>).map((d) => `${d.field}: ${d.message}`).join('\n');
    expect(messages).toMatch(/translations\.fr-ca: write the language tag "fr-ca" as "fr-CA"/);
    expect(messages).toMatch(/translations\.en: is the test's own language/);
    expect(messages).toMatch(/translations\.de\.questions\.q2: in this language, .*b1/);
    // The title's bound is the schema's own: refused before the authoring rules.
    const long = await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: { de: { title: 'T'.repeat(201) } } });
    expect(detailFields(long)).toEqual(['translations.de.title']);
    const longTag = `de-${'x'.repeat(8)}-${'y'.repeat(8)}-${'z'.repeat(8)}-${'w'.repeat(8)}`;
    const tooLong = await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: { [longTag]: { title: 'T' } } });
    expect(tooLong.json().error.details).toEqual([{ field: `translations.${longTag}`, message: `is ${longTag.length} characters; a language tag is at most 35` }]);
    const tooMany = await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-l${i}`, { title: 't' }])) });
    expectError(tooMany, 400, 'invalid_request');
  });

  it('refuses a draft whose translation holds a formula over the bounds, as it refuses one in a source text', async () => {
    const content = { ...SOURCE, contentFormat: 'markdown', translations: { fr: { questions: { q1: { prompt: `$${'x+'.repeat(600)}x$` } } } } };
    const res = await h.admin('POST', `${A}/tests/drafts`, { content });
    expectError(res, 400, 'invalid_request');
    expect([...new Set(detailFields(res))]).toEqual(['translations.fr.questions.q1.prompt']);
  });

  it('holds each question text to its source field’s bound', async () => {
    const res = await h.admin('POST', `${A}/tests`, { ...SOURCE, translations: { fr: { questions: { q1: { 'options.a.text': 'P'.repeat(2_001) } } } } });
    expectError(res, 400, 'invalid_request');
    expect(res.json().error.details).toEqual([{ field: 'translations.fr.questions.q1.options.a.text', message: 'must be at most 2000 characters, as its source field' }]);
  });

  it('keeps a Markdown test’s translations to the content rules', async () => {
    const res = await h.admin('POST', `${A}/tests`, { ...SOURCE, contentFormat: 'markdown', translations: { fr: { questions: { q1: { prompt: 'Voir ![](https://example.com/a.png)' } } } } });
    expectError(res, 400, 'invalid_request');
    expect([...new Set(detailFields(res))]).toEqual(['translations.fr.questions.q1.prompt']);
  });

  it('carries translations through a draft: saved as written, stale after a source edit, published into the version', async () => {
    const created = (await h.admin('POST', `${A}/tests/drafts`, { content: { ...SOURCE, translations: { fr: FRENCH } } })).json();
    expect(created.translationStatus.fr).toEqual({ missing: ['description'], stale: [] });
    const content = structuredClone(created.content);
    content.description = 'Deux questions, en anglais';
    content.sections[0].instructions = 'Answer both questions.';
    const saved = (await h.admin('PUT', `${A}/tests/${created.testId}/draft`, { revision: 1, content })).json();
    expect(saved.content.translations).toEqual({ fr: FRENCH });
    expect(saved.translationStatus.fr).toEqual({ missing: ['description'], stale: ['sections.s1.instructions'] });
    const published = await h.admin('POST', `${A}/tests/${created.testId}/versions`, { revision: 2 });
    expect(published.statusCode).toBe(201);
    const read = (await h.admin('GET', `${A}/tests/${created.testId}`)).json();
    expect(read.translationStatus.fr.stale).toEqual(['sections.s1.instructions']);
    const draft = (await h.admin('GET', `${A}/tests/${created.testId}/draft`)).json();
    expect(draft.content.language).toBe('en');
    expect(draft.content.translations).toEqual({ fr: FRENCH });
    expect(draft.translationStatus.fr.stale).toEqual(['sections.s1.instructions']);
  });
});
