import { describe, expect, it } from 'vitest';
import { itemsPackage, type QtiVersion } from '../../../../test/helpers/qti.js';
import { compileQtiProcessing, runQtiProcessing, type QtiData, type QtiScoringSource } from '../qti-processing/index.js';
import { importQtiPackage } from './qti-package.js';

/**
 * Response processing as real banks write it: the standard rule with
 * feedback outcomes set alongside, order items scored per item in place with
 * a full-credit branch, and the feedback left out named in the report.
 */
/** SCORE of the kept processing of an imported question for these QTI responses. */
function scoreOf(question: unknown, responses: Record<string, QtiData>): number {
  const scoring = (question as { scoring: QtiScoringSource }).scoring;
  return runQtiProcessing(compileQtiProcessing(scoring), responses).score;
}

async function one(name: string, version: QtiVersion) {
  const { input, report } = await importQtiPackage(itemsPackage([name], version));
  return { question: input?.questions?.[0], skipped: report.skipped[0], report };
}

describe.each(['3.0', '2.2'] as QtiVersion[])('QTI %s processing that also sets feedback', (version) => {
  it('match_correct written out with FEEDBACK set in every branch, SCORE = SCORE + MAXSCORE, FEEDBACKMODAL from FEEDBACK: single_choice worth MAXSCORE', async () => {
    const { question, report } = await one('choice-feedback-rp.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toEqual({
      id: 'feedback-rp-1',
      type: 'single_choice',
      prompt: 'At sea level, water boils at which temperature?',
      points: 2,
      options: [
        { id: 'c90', text: '90 °C' },
        { id: 'c100', text: '100 °C' },
        { id: 'c110', text: '110 °C' },
      ],
      correctOptionId: 'c100',
      shuffleOptions: false,
    });
    // Each kind of feedback the item carries is named, with the outcomes that show it.
    expect(report.notes).toContain(
      'items/choice-feedback-rp.xml: feedback is not imported (Assay shows candidates no feedback): 1 modal feedback, 1 feedback block, 1 inline feedback on FEEDBACK, FEEDBACKMODAL left out',
    );
  });

  it('a text entry whose mapped score is guarded by not(isNull) and followed by a FEEDBACKBASIC condition reading SCORE: short_text, the outcome noted', async () => {
    const { question, report } = await one('text-entry-feedback-rp.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toMatchObject({ type: 'short_text', points: 1, acceptedAnswers: ['went'], caseSensitive: false });
    expect(report.notes).toContain('items/text-entry-feedback-rp.xml: response processing also sets FEEDBACKBASIC, which Assay does not keep (the score does not depend on it)');
  });

  it('a score that reads a feedback outcome is not set aside: the item keeps its processing as written, which marks it', async () => {
    const { question, report } = await one('score-reads-feedback.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toMatchObject({ id: 'feedback-rp-3', type: 'single_choice', scoring: { format: 'qti', responses: [{ identifier: 'RESPONSE' }] } });
    const q = question as { correctOptionId: string; options: Array<{ id: string }> };
    const wrong = q.options.find((o) => o.id !== q.correctOptionId)!.id;
    expect(scoreOf(question, { RESPONSE: q.correctOptionId })).toBe(1);
    expect(scoreOf(question, { RESPONSE: wrong })).toBe(0);
  });
});

describe.each(['3.0', '2.2'] as QtiVersion[])('QTI %s order items scored per item in place', (version) => {
  it('full credit for the correct order, else one point per item in place (qti-index), a rounded copy for feedback: ordering with partial credit', async () => {
    const { question, report } = await one('order-in-place.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toEqual({
      id: 'rivers-order',
      type: 'ordering',
      prompt: 'Put these rivers in order, longest first.',
      points: 4,
      items: [
        { id: 'nile', text: 'Nile' },
        { id: 'amazon', text: 'Amazon' },
        { id: 'yangtze', text: 'Yangtze' },
        { id: 'danube', text: 'Danube' },
      ],
      partialCredit: true,
    });
  });

  it('a full-credit branch worth more than the items in place (a bonus), which no native rule expresses, keeps its processing as written', async () => {
    const { question, report } = await one('order-in-place-bonus.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toMatchObject({ id: 'rivers-order-bonus', type: 'ordering', points: 5, scoring: { format: 'qti' } });
    expect(scoreOf(question, { RESPONSE: ['nile', 'amazon', 'yangtze', 'danube'] })).toBe(5);
    expect(scoreOf(question, { RESPONSE: ['nile', 'amazon', 'danube', 'yangtze'] })).toBe(2);
  });
});
