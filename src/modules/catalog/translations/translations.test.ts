import { describe, expect, it } from 'vitest';
import { questionTexts, sourceTexts } from './translatable.js';
import { chooseContentLanguage, contentDirection, localizeTest, type Translatable } from './localize.js';
import { sourceHash, stampTranslations, translationStatus } from './translation-store.js';

/** The pure parts of test translations: the paths a translation names, stamping and staleness, and the overlay a candidate reads. */
const single = { id: 'q1', type: 'single_choice', prompt: 'Pick', points: 1, options: [{ id: 'a', text: 'Yes' }, { id: 'b', text: 'No' }], correctOptionId: 'a' };

describe('translatable texts', () => {
  it('names list elements by id, a composite part by its id, an associate item by its text, and leaves a drawn image out', () => {
    expect(questionTexts(single).map(([p]) => p)).toEqual(['prompt', 'options.a.text', 'options.b.text']);
    const composite = { id: 'c1', type: 'composite', prompt: 'Both', parts: [{ ...single, id: 'p1' }, { id: 'p2', type: 'numeric', prompt: 'How many?', points: 1, answer: 2 }] };
    expect(questionTexts(composite).map(([p]) => p)).toEqual(['prompt', 'parts.p1.prompt', 'parts.p1.options.a.text', 'parts.p1.options.b.text', 'parts.p2.prompt']);
    const associate = { id: 'q2', type: 'associate', prompt: 'Pair', points: 1, items: [{ id: 'paris', text: 'Paris' }, { id: 'france', text: 'France' }], pairs: [{ a: 'paris', b: 'france' }] };
    expect(questionTexts(associate).map(([p]) => p)).toEqual(['prompt', 'items.paris.text', 'items.france.text']);
    const hotspot = { id: 'q3', type: 'hotspot', prompt: 'Click', points: 1, image: { assetId: 'ast_1', alt: 'Map', width: 100, height: 100 }, regions: [], correct: [] };
    expect(questionTexts(hotspot).map(([p]) => p)).toEqual(['prompt']);
  });

  it('bounds each text as its source field is', () => {
    expect(Object.fromEntries(questionTexts(single).map(([p, s]) => [p, s.max]))).toEqual({ prompt: 10_000, 'options.a.text': 2_000, 'options.b.text': 2_000 });
  });
});

describe('stamps and staleness', () => {
  const test = { title: 'T', description: '', questions: [single] };
  it('keeps the hash of a text saved unchanged and takes the current source’s for an edited one', () => {
    const first = stampTranslations({ fr: { title: 'T fr', questions: { q1: { prompt: 'Choisissez' } } } }, test);
    expect(first.fr!['questions.q1.prompt']).toEqual({ text: 'Choisissez', source: sourceHash('Pick') });
    const changed = { ...test, questions: [{ ...single, prompt: 'Pick one' }] };
    const again = stampTranslations({ fr: { title: 'T fr', questions: { q1: { prompt: 'Choisissez' } } } }, changed, first);
    expect(translationStatus(again, changed)).toEqual({ fr: { missing: ['questions.q1.options.a.text', 'questions.q1.options.b.text'], stale: ['questions.q1.prompt'] } });
    const edited = stampTranslations({ fr: { title: 'T fr', questions: { q1: { prompt: 'Choisissez-en un' } } } }, changed, again);
    expect(translationStatus(edited, changed).fr!.stale).toEqual([]);
  });
});

describe('the content language', () => {
  const test: Translatable = {
    title: 'Capitals',
    description: 'd',
    questions: [single as never],
    sections: null,
    passages: [],
    language: 'en',
    translations: stampTranslations({ fr: { title: 'Capitales', questions: { q1: { 'options.b.text': 'Non' } } }, 'pt-BR': { title: 'Capitais' } }, { title: 'Capitals', questions: [single] }),
  };
  it('is the first wanted language the test has or is close to, else the test’s own', () => {
    expect(chooseContentLanguage(test, [null, 'fr-CA', 'pt-BR'])).toBe('fr');
    expect(chooseContentLanguage(test, ['de', 'pt'])).toBe('pt-BR');
    expect(chooseContentLanguage(test, ['de', 'ja'])).toBe('en');
    expect(chooseContentLanguage({ language: null, translations: {} }, ['fr'])).toBe('en');
  });
  it('lays a translation over the source, ids untouched, each missing text left as written', () => {
    const fr = localizeTest(test, 'fr');
    expect(fr.title).toBe('Capitales');
    expect(fr.contentLanguage).toBe('fr');
    expect(fr.questions[0]).toEqual({ ...single, options: [{ id: 'a', text: 'Yes' }, { id: 'b', text: 'Non' }] });
    expect(localizeTest(test, 'en')).toEqual({ ...test, contentLanguage: 'en' });
  });
  it('reads Arabic and Hebrew right to left', () => {
    expect([contentDirection('ar'), contentDirection('he-IL'), contentDirection('fr'), contentDirection('zz-!!')]).toEqual(['rtl', 'rtl', 'ltr', 'ltr']);
  });
});
