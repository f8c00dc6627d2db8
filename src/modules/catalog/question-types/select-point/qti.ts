import type { QtiMapping } from '../definition.js';
import { declOf, idMap, promptOf, type Ctx } from '../../interchange/qti-item-context.js';
import { f, score, template, type TextWriter } from '../../interchange/qti-writer.js';
import { descendants, elements, esc, first, type XElement } from '../../interchange/xml.js';
import { SHAPES, type Shape } from '../image-regions/geometry.js';
import { bestWith, pointIn, type Area } from './areas.js';
import type { SelectPointQuestion } from './schema.js';

/**
 * QTI: a `qti-select-point-interaction` showing the image, its response a
 * `point` with a `qti-area-mapping` (one `qti-area-map-entry` per area, the
 * question's points as the upper bound), scored by the map_response_point
 * template. QTI's areas have no ids or names, so the interaction carries
 * them in `data-area-ids` and `data-area-labels` (JSON lists in the areas'
 * order); an item without them gets `a1`, `Area 1`, …. The image is
 * written as `<img src="asset:ast_…">`, which the export points at the
 * package's copy of the asset.
 *
 * Any other processing over the area mapping (a bonus, a penalty, a
 * default value) is kept (`scoring`): read with `ctx.keyOnly`, the areas
 * are the mapping's, each worth its mapped value (a negative one 0: the key
 * shows where points earn), and the kept processing gives the marks. An
 * item without an area mapping has no areas to show, and is skipped.
 */

type Q = SelectPointQuestion & { id: string };
const ASSET = /\(asset:(ast_[A-Za-z0-9_-]+)\)/;

export const selectPointQti: QtiMapping<Q> = {
  interactions: ['qti-select-point-interaction'],
  read: readSelectPoint,
  write(q, resp, w: TextWriter) {
    const correct = q.areas.filter((a) => a.points > 0).slice(0, q.maxPoints).map((a) => pointIn(q.areas, a)).filter((p) => p !== null);
    const decls = [
      {
        id: resp,
        cardinality: q.maxPoints === 1 ? ('single' as const) : ('multiple' as const),
        baseType: 'point',
        correct: (q.maxPoints === 1 ? correct.slice(0, 1) : correct).map((p) => `${f(p.x)} ${f(p.y)}`),
        areaMapping: { entries: q.areas.map((a) => ({ shape: a.shape, coords: a.coords, value: a.points })), upper: q.points },
      },
    ];
    const data = ` data-area-ids="${esc(JSON.stringify(q.areas.map((a) => a.id)))}" data-area-labels="${esc(JSON.stringify(q.areas.map((a) => a.label)))}"`;
    const body =
      `    ${w.block(q.prompt)}\n` +
      `    <qti-select-point-interaction response-identifier="${esc(resp)}" max-choices="${q.maxPoints}"${data}><img src="${esc(q.image)}" alt="${esc(q.imageAlt)}"/></qti-select-point-interaction>\n`;
    return { decls, body, rp: template('map_response_point') };
  },
  summed: (_q, resp) => [score(`<qti-sum><qti-variable identifier="SCORE"/><qti-map-response-point identifier="${esc(resp)}"/></qti-sum>`)],
};

function readSelectPoint(ctx: Ctx, it: XElement): Omit<Q, 'id'> | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.baseType !== 'point') return `the select point interaction's response is a ${decl.baseType || 'value of no base type'}, not a point`;
  const kept = ctx.keyOnly === true;
  if (!kept && (ctx.rp.kind !== 'map_response_point' || decl.identifier !== 'RESPONSE')) {
    return 'a select point item is imported when it is scored by the map_response_point template (on RESPONSE)';
  }
  const declEl = elements(ctx.item, 'qti-response-declaration').find((d) => d.attrs['identifier'] === decl.identifier);
  const mapping = declEl && first(declEl, 'qti-area-mapping');
  if (!mapping) return kept ? 'a select point item that keeps its processing needs an area mapping: its areas are the question\'s' : 'map_response_point without an area mapping';
  const num = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : Number(s));
  // Kept processing gives the marks: the mapping's default and bounds are its to apply.
  if (!kept && (num(mapping.attrs['default-value']) ?? 0) !== 0) return 'an area mapping whose default value is not 0 (points outside every area score) cannot be expressed';
  const lower = num(mapping.attrs['lower-bound']);
  if (!kept && lower !== null && lower > 0) return 'an area mapping lower bound above 0 cannot be expressed';
  const upper = num(mapping.attrs['upper-bound']);

  const entries = elements(mapping, 'qti-area-map-entry');
  if (entries.length === 0 || entries.length > 100) return 'a select point item needs 1 to 100 areas';
  const ids = listAttr(it, 'data-area-ids');
  const labels = listAttr(it, 'data-area-labels');
  const idOf = idMap(entries.map((_, i) => (ids?.length === entries.length ? ids[i]! : `a${i + 1}`)), 'a');
  const areas: Area[] = [];
  for (const [i, e] of entries.entries()) {
    const shape = e.attrs['shape'] ?? '';
    if (!(SHAPES as readonly string[]).includes(shape)) return `an area's shape "${shape.slice(0, 40)}" is not rect, circle or poly`;
    const coords = (e.attrs['coords'] ?? '').split(/[\s,]+/).filter(Boolean).map(Number);
    if (coords.some((c) => !Number.isFinite(c) || c < 0)) return 'an area has coordinates that are not numbers of 0 or more';
    const mapped = Number(e.attrs['mapped-value']);
    if (!Number.isFinite(mapped) || (!kept && mapped < 0)) return 'an area is mapped to a negative or missing value';
    const points = Math.max(0, mapped);
    const label = labels?.length === entries.length && labels[i]!.trim() ? labels[i]!.trim().slice(0, 200) : `Area ${i + 1}`;
    areas.push({ id: idOf.get(ids?.length === entries.length ? ids[i]! : `a${i + 1}`)!, label, shape: shape as Shape, coords, points });
  }

  const img = descendants(it).find((e) => e.name === 'img' || (e.name === 'object' && (e.attrs['type'] ?? '').startsWith('image/')));
  if (!img) return 'the select point interaction shows no image';
  const imageAlt = (img.attrs['alt'] ?? '').trim();
  // The image's asset once the import has stored it; a first reading, before images are placed, has none yet.
  const ref = ctx.imageRef?.(img)?.src ?? ctx.imageInline(img) ?? '';
  const asset = (/^asset:(ast_[A-Za-z0-9_-]+)$/.exec(ref) ?? ASSET.exec(ref))?.[1] ?? 'ast_pending';
  const choices = Number(it.attrs['max-choices'] ?? '0');
  // 0 (or none) is "no limit": more points than areas can earn nothing more, as each area counts once.
  // Kept processing reads a single response as one point.
  const maxPoints = kept && decl.cardinality === 'single' ? 1 : Math.min(100, Number.isInteger(choices) && choices > 0 ? choices : areas.length);
  // QTI's score is the sum capped at the upper bound: full marks are that, or all the best areas give.
  const best = bestWith(areas, maxPoints);
  const points = Math.round(Math.min(upper ?? Infinity, best) * 1e9) / 1e9;
  return { type: 'select_point', prompt: promptOf(ctx, it), points, image: `asset:${asset}`, imageAlt: imageAlt || 'Image', areas, maxPoints };
}

function listAttr(el: XElement, name: string): string[] | null {
  try {
    const v: unknown = JSON.parse(el.attrs[name] ?? 'null');
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}
