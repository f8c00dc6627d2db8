import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fixture, packageOf } from '../../../../test/helpers/qti.js';
import type { TestInput } from '../schemas.js';
import { exportQti3, type ExportableTest } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';

/** A test's language through QTI (docs/import-export.md): `xml:lang` read into `language` and written from it. */
const TEST: ExportableTest = {
  testId: 'tst_lang',
  title: 'Capitales',
  durationMinutes: 10,
  language: 'fr',
  passages: [{ id: 'texte', text: 'Paris est la capitale.' }],
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Capitale de la France ?', points: 1, passageId: 'texte', options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
  ],
};

const files = (bytes: Uint8Array) => Object.fromEntries(Object.entries(unzipSync(bytes)).map(([k, v]) => [k, strFromU8(v)]));

describe('QTI xml:lang', () => {
  it('is written on the test, each item and each stimulus of a test that declares its language, and read back as the language', async () => {
    const pkg = exportQti3(TEST);
    const written = files(pkg);
    expect(written['assessment-test.xml']).toMatch(/<qti-assessment-test xml:lang="fr" /);
    expect(written['items/q1.xml']).toMatch(/<qti-assessment-item xml:lang="fr" /);
    const stimulus = Object.entries(written).find(([k]) => k.includes('texte'))![1];
    expect(stimulus).toMatch(/<qti-assessment-stimulus xml:lang="fr" /);
    const { input } = await importQtiPackage(pkg, { dryRun: true });
    expect((input as TestInput).language).toBe('fr');
  });

  it('is not written for a test that declares no language', () => {
    const written = files(exportQti3({ ...TEST, language: null }));
    expect(Object.values(written).join('\n')).not.toContain('xml:lang');
  });

  it('takes a QTI 2.2 item’s xml:lang, in canonical form, when the package has no test to declare one', async () => {
    const { input, report } = await importQtiPackage(packageOf([{ path: 'items/capitale.xml', xml: fixture('v22-choice-fr.xml') }], '2.2'), { dryRun: true });
    expect(report.imported).toBe(1);
    expect(input!.language).toBe('fr-FR');
  });

  it('prefers the test’s own xml:lang, and declares none when items disagree without one', async () => {
    const item = (id: string, lang: string) => fixture('choice-single.xml').replace('identifier="planets-1"', `identifier="${id}" xml:lang="${lang}"`);
    const test = (lang: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="t1" title="T"${lang}>` +
      `<qti-test-part identifier="p1" navigation-mode="nonlinear" submission-mode="simultaneous"><qti-assessment-section identifier="s1" title="S" visible="true">` +
      `<qti-assessment-item-ref identifier="i1" href="i1.xml"/><qti-assessment-item-ref identifier="i2" href="i2.xml"/></qti-assessment-section></qti-test-part></qti-assessment-test>`;
    const files = (lang: string) => [
      { path: 'test.xml', xml: test(lang), kind: 'test' as const },
      { path: 'i1.xml', xml: item('i1', 'de') },
      { path: 'i2.xml', xml: item('i2', 'en') },
    ];
    const declared = await importQtiPackage(packageOf(files(' xml:lang="es"')), { dryRun: true });
    expect(declared.input!.language).toBe('es');
    const mixed = await importQtiPackage(packageOf(files('')), { dryRun: true });
    expect(mixed.input!.language).toBeUndefined();
    expect(mixed.report.notes).toContain('the items are written in several languages (de, en), so the test declares none');
  });
});
