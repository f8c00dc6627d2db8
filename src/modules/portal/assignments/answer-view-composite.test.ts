import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTestInput } from '../../catalog/authoring.js';
import type { TestInput } from '../../catalog/schemas.js';
import { answerView } from './answer-view.js';
import { itemsPackage } from '../../../../test/helpers/qti.js';
import { importQtiPackage } from '../../catalog/interchange/qti-package.js';

/** The page's text as a reader hears it: tags dropped, whitespace collapsed. */
const text = (h: { value: string }) => h.value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../../docs/examples/tests/composite.json'), 'utf8')) as TestInput;
const q = checkTestInput(EXAMPLE).questions[0]!;

describe("a composite question's answer for staff", () => {
  it("shows each part by name with its points, its prompt and its answer in its own type's words", () => {
    const shown = text(answerView(q, { time: '2', energy: 'kinetic', order: ['rest', 'ground', 'half'] }));
    expect(shown).toContain('Part 1 (2 of 2 points) How long does the ball take to reach the ground, in seconds? 2 Expected: 2 ± 0.05');
    expect(shown).toContain('Part 2 (0 of 1 point) Which energy store empties as the ball falls? Gravitational potential (correct answer) Kinetic Chosen Thermal');
    expect(shown).toContain('Part 3 (0 of 1 point) Name the SI unit of energy. Not answered.');
    expect(shown).toContain('Part 4 (0.67 of 2 points) Put the ball&#39;s speeds in the order it has them, first at the top. 0 m/s in its correct place 20 m/s not in place (belongs at 3) 10 m/s not in place (belongs at 2)');
    // Never the part ids alone.
    expect(shown).not.toMatch(/\benergy\b.*\bkinetic\b/);
  });

  it('a composite question that keeps its QTI processing says so and shows no points per part (the processing marks them together)', async () => {
    const { input } = await importQtiPackage(itemsPackage(['composite-bonus.xml']));
    const kept = checkTestInput(input!).questions[0]!;
    const shown = text(answerView(kept, { CAPITAL: 'paris', RIVER: 'seine' }));
    expect(shown).toMatch(/^Marked by its imported QTI response processing: the correct answer shown is the item's declared one, and the mark may differ from it\./);
    expect(shown).toContain('Part 1 Which city is the capital of France? Lyon Paris Chosen (correct answer) Nice');
    expect(shown).toContain('Part 2 Which river flows through it? seine');
    expect(shown).not.toMatch(/of 1 point/);
  });
});
