import { describe, expect, it } from 'vitest';
import { fixture, packageOf } from '../../../../test/helpers/qti.js';
import type { Pool } from '../../../platform/db.js';
import { AppError } from '../../../platform/errors.js';
import { formatOf, importTest, readImport } from './import-service.js';
import { markdownTexts } from '../content/content-checks.js';
import { checkText, textChecks } from '../content/text-checks.js';

// A dry run never reaches the database.
const NO_DATABASE = null as unknown as Pool;

describe('import service', () => {
  it('reads the format from the Content-Type', () => {
    expect(formatOf('application/zip')).toBe('qti');
    expect(formatOf('application/x-zip-compressed')).toBe('qti');
    expect(formatOf('text/csv; charset=utf-8')).toBe('csv');
    expect(formatOf('application/json')).toBeNull();
    expect(formatOf(undefined)).toBeNull();
  });

  it('a package whose test would break the limits of POST /tests (51 sections) is refused with 400, not stored', async () => {
    const sections = Array.from({ length: 51 }, (_, i) => `<qti-assessment-section identifier="s${i}" title="S${i}" visible="true"><qti-assessment-item-ref identifier="r${i}" href="items/i${i}.xml"/></qti-assessment-section>`).join('');
    const test = `<qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="t" title="Many"><qti-test-part identifier="p" navigation-mode="linear" submission-mode="individual">${sections}</qti-test-part></qti-assessment-test>`;
    const items = Array.from({ length: 51 }, (_, i) => ({ path: `items/i${i}.xml`, xml: fixture('choice-single.xml') }));
    const err = await importTest(NO_DATABASE, { bytes: packageOf([{ path: 'test.xml', xml: test, kind: 'test' }, ...items]), format: 'qti', dryRun: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_request');
    expect((err as AppError).details).toEqual([{ field: 'sections', message: expect.stringMatching(/50/) }]);
  });

  it('nothing importable: 422 import_failed, each skipped item a detail (file#identifier, interaction: reason)', async () => {
    const err = await importTest(NO_DATABASE, { bytes: packageOf([{ path: 'items/h.xml', xml: fixture('skip-hotspot.xml') }]), format: 'qti', dryRun: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'import_failed', status: 422, details: [{ field: 'items/h.xml#skip-hotspot', message: 'hotspot-interaction: the graphic interaction shows no image' }] });
  });

  it('a dry run answers the test it would create, under the given title', async () => {
    const res = await importTest(NO_DATABASE, { bytes: packageOf([{ path: 'items/a.xml', xml: fixture('order.xml') }]), format: 'qti', dryRun: true, title: 'History' });
    expect(res).toMatchObject({ dryRun: true, testId: null, test: { title: 'History', questions: [{ id: 'history-11', type: 'ordering' }] }, report: { imported: 1 } });
  });

  it("keeps the pool's checks of the test's texts, so creating it sends none of them to the pool again", async () => {
    const prompt = `A prompt seen nowhere else (${Math.random()}), with <strong>markup</strong>`;
    const xml = fixture('order.xml').replace(/<qti-prompt>[^<]*<\/qti-prompt>/, `<qti-prompt>${prompt}</qti-prompt>`);
    const { input } = await readImport({ bytes: packageOf([{ path: 'items/a.xml', xml }]), format: 'qti', dryRun: false });
    const sources = markdownTexts(input);
    expect(sources.some((s) => s.includes('seen nowhere else'))).toBe(true);
    expect(textChecks.missing(sources)).toEqual([]);
    for (const source of sources) expect(textChecks.problems(source)).toEqual(checkText(source).problems);
  });
});
