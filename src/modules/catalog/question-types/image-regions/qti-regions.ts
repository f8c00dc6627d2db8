import { idMap, type Ctx } from '../../interchange/qti-item-context.js';
import { descendants, esc, textOf, type XElement } from '../../interchange/xml.js';
import { SHAPES, shapeProblem, type Region, type Shape } from './geometry.js';
import type { ImageQuestion } from './region-picture.js';

/**
 * The QTI side of the image types (hotspot, graphic_order): the image of a
 * graphic interaction, and its choices (`qti-hotspot-choice`) as regions.
 * QTI's coords are written as Assay stores them: rect "left,top,right,bottom",
 * circle "x,y,r", poly "x1,y1,x2,y2,…" (a polygon whose last point repeats
 * the first, as HTML image maps often write it, is read as it is).
 */

const PLACED = /^!\[([^\]\n]*)\]\((asset:ast_[A-Za-z0-9_-]+)\)$/;

/** The interaction's image as the question's fields; why not; or, on the importer's first look (images not yet stored), a stand-in. */
export function imageOf(ctx: Ctx, it: XElement): Pick<ImageQuestion, 'image' | 'imageAlt' | 'imageWidth' | 'imageHeight'> | string {
  const img = descendants(it).find((e) => e.name === 'img' || e.name === 'object');
  if (!img) return 'the graphic interaction shows no image';
  if (img.name === 'object' && !(img.attrs['type'] ?? '').startsWith('image/')) return 'the graphic interaction\'s object is not an image';
  const size = ['width', 'height'].map((a) => Number(img.attrs[a]));
  const sized = size.every((n) => Number.isInteger(n) && n >= 1 && n <= 100_000) ? { imageWidth: size[0]!, imageHeight: size[1]! } : {};
  const placed = ctx.imageInline(img);
  // The importer reads each item twice: first to find its images, then with each stored as an asset (qti-package.ts).
  if (placed === undefined) return { image: 'asset:ast_unplaced', imageAlt: (img.attrs['alt'] ?? '').trim() || textOf(img).trim().slice(0, 1_000) || 'image', ...sized };
  const m = PLACED.exec(placed.trim());
  if (!m) return 'the graphic interaction\'s image could not be stored';
  // A QTI 2 object's alternative is its content.
  return { image: m[2]!, imageAlt: m[1]!.trim() || textOf(img).trim().slice(0, 1_000) || 'image', ...sized };
}

/** The interaction's choices as regions (ids Assay accepts, labels unique), the QTI identifier of each, or why not. */
export function regionsOf(choices: XElement[], notes: string[]): { regions: Region[]; ids: Map<string, string> } | string {
  const ids = idMap(choices.map((c) => c.attrs['identifier'] ?? ''), 'r');
  const labels = new Set<string>();
  const regions: Region[] = [];
  for (const [i, c] of choices.entries()) {
    let shape = (c.attrs['shape'] ?? '').trim().toLowerCase();
    let coords = (c.attrs['coords'] ?? '').split(',').map((s) => Number(s.trim()));
    if (shape === 'ellipse') {
      const poly = ellipseAsPolygon(coords);
      if (typeof poly === 'string') return `hotspot "${c.attrs['identifier'] ?? i + 1}": ${poly}`;
      [shape, coords] = ['poly', poly];
      if (!notes.includes(ELLIPSE_NOTE)) notes.push(ELLIPSE_NOTE);
    }
    if (!(SHAPES as readonly string[]).includes(shape)) return `hotspot "${c.attrs['identifier'] ?? i + 1}" has shape "${shape}"; Assay draws rect, circle and poly`;
    if (coords.some((n) => !Number.isFinite(n) || n < 0 || n > 100_000)) return `hotspot "${c.attrs['identifier'] ?? i + 1}" has coordinates that are not numbers from 0 to 100000`;
    const problem = shapeProblem(shape as Shape, coords);
    if (problem) return `hotspot "${c.attrs['identifier'] ?? i + 1}": ${problem}`;
    let label = (c.attrs['hotspot-label'] ?? '').trim() || textOf(c).trim();
    if (!label) {
      label = `Region ${i + 1}`;
      const note = 'hotspots without a label are named Region 1, Region 2, …: name them in the editor';
      if (!notes.includes(note)) notes.push(note);
    }
    while (labels.has(label.toLowerCase())) label = `${label} (${i + 1})`;
    labels.add(label.toLowerCase());
    regions.push({ id: ids.get(c.attrs['identifier'] ?? '')!, label: label.slice(0, 200), shape: shape as Shape, coords });
  }
  return { regions, ids };
}

const ELLIPSE_SIDES = 32;
const ELLIPSE_NOTE = `ellipse hotspots (a QTI 2.1 shape) are drawn as ${ELLIPSE_SIDES}-sided polygons through their edge: a choice is marked by its identifier, so only the outline drawn changes`;

/**
 * An ellipse hotspot ("centre x, centre y, horizontal radius, vertical
 * radius") as a polygon through its edge, each point rounded to a tenth of a
 * pixel and kept on the image (at least 0), or why not.
 */
function ellipseAsPolygon(coords: readonly number[]): number[] | string {
  if (coords.length !== 4 || coords.some((n) => !Number.isFinite(n))) return 'an ellipse takes 4 numbers: centre x, centre y, horizontal radius, vertical radius';
  const [cx, cy, rx, ry] = coords as [number, number, number, number];
  if (!(rx > 0 && ry > 0)) return "an ellipse's radii must be more than 0";
  const at = (n: number) => Math.max(0, Math.round(n * 10) / 10);
  return Array.from({ length: ELLIPSE_SIDES }, (_, k) => (2 * Math.PI * k) / ELLIPSE_SIDES).flatMap((t) => [at(cx + rx * Math.cos(t)), at(cy + ry * Math.sin(t))]);
}

/** The image inside an interaction: the export points `src="asset:…"` at the package's copy of the asset (qti-export.ts). */
export const imageXml = (q: ImageQuestion) =>
  `<img src="${esc(q.image)}" alt="${esc(q.imageAlt)}"${q.imageWidth !== undefined && q.imageHeight !== undefined ? ` width="${q.imageWidth}" height="${q.imageHeight}"` : ''}/>`;

/** A region as a QTI hotspot choice (`element`: qti-hotspot-choice, or qti-associable-hotspot). */
export const choiceXml = (r: Region, element = 'qti-hotspot-choice') =>
  `<${element} identifier="${esc(r.id)}" shape="${r.shape}" coords="${r.coords.join(',')}" hotspot-label="${esc(r.label)}"/>`;
