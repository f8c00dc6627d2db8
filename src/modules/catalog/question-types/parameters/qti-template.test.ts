import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { itemsPackage, type QtiVersion } from '../../../../../test/helpers/qti.js';
import { checkTestInput } from '../../authoring.js';
import { exportQti3 } from '../../interchange/qti-export.js';
import { importQtiPackage } from '../../interchange/qti-package.js';
import type { TestInput } from '../../schemas.js';

const PARAMETRISED: TestInput = {
  title: 'Calculated',
  description: '',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  questions: [
    {
      id: 'speed',
      type: 'numeric',
      prompt: 'A train covers {d} km in {t} hours. What is its speed in km/h, to one decimal place?',
      points: 2,
      tolerance: 0.05,
      variables: [
        { name: 'd', min: 100, max: 500, step: 10 },
        { name: 't', values: [2, 3, 4.5] },
      ],
      constraints: ['d / t >= 30 and not (d = 200)', 'round(d / t, 1) != 100'],
      answerFormula: 'round(d / t, 1) + sqrt(abs(-4)) - 2 * 1 ^ 3 + min(0, -0) + log(exp(0)) + max(floor(0.2), ceil(-0.2)) + log10(1)',
    },
  ],
};

describe.each(['3.0', '2.2'] as QtiVersion[])('QTI %s template items', (version) => {
  it('import as parametrised numeric questions: random values, constraints, the correct response as a formula, printed variables as {name}', async () => {
    const { input, report } = await importQtiPackage(itemsPackage(['template-numeric.xml'], version));
    expect(report.skipped).toEqual([]);
    expect(input!.questions![0]).toEqual({
      id: 'area-1',
      type: 'numeric',
      prompt: 'A rectangle is {W} cm wide and {H} cm high. What is its area plus a half, in cm²?',
      points: 2,
      tolerance: 0,
      variables: [
        { name: 'W', min: 2, max: 12, step: 2 },
        { name: 'H', values: [3, 5] },
      ],
      constraints: ['(W > H)'],
      answerFormula: '((W * H) + 0.5)',
    });
    expect(report.notes.join('\n')).not.toContain('template processing is not imported');
    // The imported question passes the authoring checks as it is.
    expect(() => checkTestInput(input!)).not.toThrow();
  });

  it('skip a template with a rule Assay cannot express, naming it', async () => {
    const { report } = await importQtiPackage(itemsPackage(['skip-template-condition.xml'], version));
    expect(report.skipped).toEqual([expect.objectContaining({ reason: 'the template rule qti-template-condition is not supported' })]);
  });
});

describe('QTI export of a parametrised question', () => {
  const content = checkTestInput(PARAMETRISED);
  const zip = exportQti3({ testId: 'tst_calc', title: PARAMETRISED.title, durationMinutes: 20, questions: content.questions });
  const item = new TextDecoder().decode(unzipSync(zip)['items/speed.xml']!);

  it('writes template declarations, processing and printed variables', () => {
    expect(item).toContain('<qti-template-declaration identifier="d" cardinality="single" base-type="integer"');
    expect(item).toContain('<qti-set-template-value identifier="d"><qti-random-integer min="100" max="500" step="10"/></qti-set-template-value>');
    expect(item).toContain('<qti-random><qti-multiple><qti-base-value base-type="float">2</qti-base-value>');
    expect(item).toContain('<qti-set-correct-response identifier="RESPONSE">');
    expect(item).toContain('A train covers <qti-printed-variable identifier="d"/> km in <qti-printed-variable identifier="t"/> hours.');
    expect(item.indexOf('<qti-template-processing>')).toBeLessThan(item.indexOf('<qti-item-body'));
  });

  it('round trip: the imported question draws and marks as the original does', async () => {
    const { input, report } = await importQtiPackage(zip);
    expect(report.skipped).toEqual([]);
    const back = checkTestInput(input!).questions[0] as Record<string, unknown>;
    const original = content.questions[0] as Record<string, unknown>;
    expect({ ...back, constraints: undefined, answerFormula: undefined }).toEqual({ ...original, constraints: undefined, answerFormula: undefined });
    // The expressions come back bracketed; they must mean the same for every value.
    const { evaluate, parseExpression } = await import('./expression.js');
    for (const d of [100, 200, 310, 500]) {
      for (const t of [2, 3, 4.5]) {
        const same = (a: string, b: string) => expect(evaluate(parseExpression(a), { d, t })).toBeCloseTo(evaluate(parseExpression(b), { d, t }), 9);
        same(back.answerFormula as string, original.answerFormula as string);
        (original.constraints as string[]).forEach((c, i) => same((back.constraints as string[])[i]!, c));
      }
    }
  });
});
