import { defineQuestionType } from '../definition.js';
import { checkPoints, PointsAnswer, pointsOf } from './answer.js';
import { areasHit, box, MAX_COORD, pointIn, pointsFor } from './areas.js';
import { selectPointQti } from './qti.js';
import { checkSelectPoint, SelectPointQuestion } from './schema.js';
import { selectPointInput, selectPointReview } from './view.js';

export { checkSelectPoint, SelectPointQuestion } from './schema.js';

/**
 * select_point (QTI selectPointInteraction, scored by mapResponsePoint):
 * the candidate places up to `maxPoints` points on an image; each area
 * holding a point earns its points once (areas.ts says how overlaps count),
 * the sum capped at the question's points. The answer is the points in
 * image pixels.
 */
export const selectPointType = defineQuestionType<SelectPointQuestion & { id: string }>({
  type: 'select_point',
  label: 'Select point',
  schema: SelectPointQuestion,
  part: { title: 'SelectPointPart' },
  autoMarkable: true,
  check: checkSelectPoint,
  contentFields: (q) => [['prompt', q.prompt]],
  assets: (q) => [['image', q.image.slice('asset:'.length)]],
  answer: {
    schema: PointsAnswer,
    check: (q, value) => checkPoints(q.maxPoints, value),
    answered: (_q, value) => pointsOf(value).length > 0,
  },
  // Points past maxPoints never reach a stored answer (answer.check refuses them); ignoring them here keeps the rule if one did.
  mark: (q, value) => ({ kind: 'auto', points: pointsFor(q.areas, pointsOf(value).slice(0, q.maxPoints), q.points) }),
  simulate: {
    correct: (q) => {
      // The richest areas first, one point each, until full marks (check() saw they reach it).
      const out: Array<{ x: number; y: number }> = [];
      let total = 0;
      for (const a of [...q.areas].sort((x, y) => y.points - x.points)) {
        if (out.length >= q.maxPoints || total >= q.points - 1e-9 || a.points === 0) break;
        const p = pointIn(q.areas, a);
        if (!p) continue;
        out.push({ x: p.x, y: p.y });
        total += a.points;
      }
      return out.length > 0 ? out : null;
    },
    wrong: (q) => {
      // Just past every area's right and bottom edges: in none of them.
      const right = Math.max(...q.areas.map((a) => box(a)[2])) + 1;
      const bottom = Math.max(...q.areas.map((a) => box(a)[3])) + 1;
      return right <= MAX_COORD && bottom <= MAX_COORD ? [{ x: right, y: bottom }] : null;
    },
  },
  // No distractor table: the rollup counts chosen ids in SQL (results/statistics-repo.ts), and these answers are points; facility and discrimination only.
  page: selectPointInput,
  review: selectPointReview,
  answerText: (q, value) => {
    const points = pointsOf(value);
    if (points.length === 0) return '';
    const hit = areasHit(q.areas, points);
    return `${points.map((p) => `(${p.x}, ${p.y})`).join('; ')}${hit.length > 0 ? ` in ${hit.map((a) => a.label).join(', ')}` : ''}`;
  },
  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.selectPoint.shapeRect', 'portal.editor.selectPoint.shapeCircle', 'portal.editor.selectPoint.shapePoly',
    'portal.editor.selectPoint.coordsRect', 'portal.editor.selectPoint.coordsCircle', 'portal.editor.selectPoint.coordsPoly',
    'portal.editor.selectPoint.area', 'portal.editor.selectPoint.coords', 'portal.editor.selectPoint.label', 'portal.editor.selectPoint.labelHint',
    'portal.editor.selectPoint.shape', 'portal.editor.selectPoint.points', 'portal.editor.selectPoint.pointsHint', 'portal.editor.remove',
    'portal.editor.selectPoint.areaName', 'portal.editor.type.selectPoint', 'portal.editor.selectPoint.add', 'portal.editor.regions.image',
    'portal.editor.selectPoint.imageHint', 'portal.editor.regions.imageAlt', 'portal.editor.selectPoint.imageAltHint',
    'portal.editor.selectPoint.overlapHint', 'portal.editor.selectPoint.maxPoints', 'portal.editor.selectPoint.maxPointsHint',
  ],
  clientMessages: [
    'question.selectPoint.allPlaced',
    'question.selectPoint.count',
    'question.selectPoint.notLoaded',
    'question.selectPoint.point',
    'question.selectPoint.pointIn',
    'question.selectPoint.pointNear',
    'question.selectPoint.placed',
    'question.selectPoint.remove',
    'question.selectPoint.removed',
  ],
  styles: { student: new URL('./student.css', import.meta.url), portal: new URL('./portal.css', import.meta.url) },
  qti: selectPointQti,
});
