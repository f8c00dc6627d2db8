import { elements, first, type XElement } from '../interchange/xml.js';
import { shapeProblem } from './areas.js';
import {
  QTI_PROCESSING_LIMITS as LIMITS,
  QtiProcessingError,
  type AreaMapping,
  type Card,
  type LookupTable,
  type Mapping,
  type QtiBaseType,
  type QtiData,
  type QtiScalar,
  type Shape,
  type Variable,
} from './types.js';
import { isNumeric, readScalar } from './values.js';

/** Reading response and outcome declarations (default values, correct responses, mappings, lookup tables). */

const BASE_TYPES = new Set<string>(['identifier', 'string', 'integer', 'float', 'boolean', 'point', 'pair', 'directedPair', 'duration', 'uri', 'file']);
const SHAPES = new Set<string>(['rect', 'circle', 'poly', 'ellipse', 'default']);

const fail = (why: string): never => {
  throw new QtiProcessingError(why);
};

export const textIn = (el: XElement): string => el.children.map((c) => (typeof c === 'string' ? c : textIn(c))).join('');

/** A number from an attribute or text; `what` names it in the error. */
export function numberAttr(el: XElement, attr: string, what: string, fallback?: number): number {
  const raw = el.attrs[attr];
  if (raw === undefined || raw.trim() === '') return fallback ?? fail(`has a ${what} without its ${attr}`);
  const v = readScalar(raw, 'float');
  return typeof v === 'number' && Number.isFinite(v) ? v : fail(`has a ${what} whose ${attr} "${raw.slice(0, 40)}" is not a number`);
}
const optionalNumber = (el: XElement, attr: string, what: string): number | null =>
  el.attrs[attr] === undefined ? null : numberAttr(el, attr, what);

export function baseTypeOf(el: XElement, what: string): QtiBaseType {
  const b = el.attrs['base-type'];
  if (b === undefined) return fail(`has a ${what} without a base-type`);
  return BASE_TYPES.has(b) ? (b as QtiBaseType) : fail(`has a ${what} with the unknown base-type "${b.slice(0, 40)}"`);
}

/** One value written in the file, read as `base`. */
export function valueOf(text: string, base: QtiBaseType, what: string): QtiScalar {
  if (text.length > LIMITS.stringChars) fail(`has a ${what} longer than ${LIMITS.stringChars.toLocaleString('en-US')} characters`);
  const v = readScalar(text, base);
  return v === undefined ? fail(`has a ${what} "${text.trim().slice(0, 40)}" that is not a ${base}`) : v;
}

/** The <qti-value>s of a default value, correct response or lookup target, as one QtiData of the declared cardinality. */
function values(parent: XElement | undefined, card: Card, base: QtiBaseType, what: string): QtiData {
  if (!parent) return null;
  const vals = elements(parent, 'qti-value');
  if (vals.length > LIMITS.containerValues) fail(`has a ${what} of more than ${LIMITS.containerValues.toLocaleString('en-US')} values`);
  const read = vals.map((v) => valueOf(textIn(v), v.attrs['base-type'] ? baseTypeOf(v, what) : base, what));
  if (card === 'single') {
    if (read.length > 1) fail(`has a ${what} of several values for a single-cardinality variable`);
    return read[0] ?? null;
  }
  return read.length === 0 ? null : read;
}

function mappingOf(el: XElement, base: QtiBaseType, id: string): Mapping {
  const what = `mapping of ${id}`;
  const entries = elements(el, 'qti-map-entry');
  if (entries.length > LIMITS.containerValues) fail(`has a ${what} of more than ${LIMITS.containerValues.toLocaleString('en-US')} entries`);
  return {
    entries: entries.map((e) => ({
      key: valueOf(e.attrs['map-key'] ?? '', base, `map-key in the ${what}`),
      value: numberAttr(e, 'mapped-value', `map entry in the ${what}`),
      // QTI 2.1 requires the attribute; where a file leaves it out it is read as true (exact comparison), as other engines do.
      caseSensitive: e.attrs['case-sensitive'] !== 'false' && e.attrs['case-sensitive'] !== '0',
    })),
    defaultValue: numberAttr(el, 'default-value', what, 0),
    lowerBound: optionalNumber(el, 'lower-bound', what),
    upperBound: optionalNumber(el, 'upper-bound', what),
  };
}

function areaMappingOf(el: XElement, id: string): AreaMapping {
  const what = `area mapping of ${id}`;
  const entries = elements(el, 'qti-area-map-entry');
  if (entries.length > LIMITS.containerValues) fail(`has an ${what} of more than ${LIMITS.containerValues.toLocaleString('en-US')} areas`);
  return {
    entries: entries.map((e) => {
      const shape = e.attrs['shape'] ?? '';
      if (!SHAPES.has(shape)) fail(`has an ${what} with the unknown shape "${shape.slice(0, 40)}"`);
      const coords = (e.attrs['coords'] ?? '').split(/[\s,]+/).filter(Boolean).map((c) => valueOf(c, 'float', `coordinate in the ${what}`) as number);
      const problem = shapeProblem(shape as Shape, coords);
      if (problem) fail(`has an ${what} where ${problem}`);
      return { shape: shape as Shape, coords, value: numberAttr(e, 'mapped-value', `area in the ${what}`) };
    }),
    defaultValue: numberAttr(el, 'default-value', what, 0),
    lowerBound: optionalNumber(el, 'lower-bound', what),
    upperBound: optionalNumber(el, 'upper-bound', what),
  };
}

function lookupOf(decl: XElement, base: QtiBaseType, id: string): LookupTable | null {
  const match = first(decl, 'qti-match-table');
  const interp = first(decl, 'qti-interpolation-table');
  const target = (raw: string | undefined, what: string): QtiData => (raw === undefined ? null : valueOf(raw, base, what));
  if (match) {
    const what = `match table of ${id}`;
    return {
      kind: 'match',
      entries: elements(match, 'qti-match-table-entry').map((e) => {
        const source = valueOf(e.attrs['source-value'] ?? '', 'integer', `source-value in the ${what}`) as number;
        return { source, target: target(e.attrs['target-value'] ?? '', `target-value in the ${what}`) };
      }),
      defaultValue: target(match.attrs['default-value'], `default-value of the ${what}`),
    };
  }
  if (interp) {
    const what = `interpolation table of ${id}`;
    return {
      kind: 'interpolation',
      entries: elements(interp, 'qti-interpolation-table-entry').map((e) => ({
        source: numberAttr(e, 'source-value', `entry in the ${what}`),
        includeBoundary: e.attrs['include-boundary'] !== 'false',
        target: target(e.attrs['target-value'] ?? '', `target-value in the ${what}`),
      })),
      defaultValue: target(interp.attrs['default-value'], `default-value of the ${what}`),
    };
  }
  return null;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The variables the declarations declare; refuses record cardinality, unknown base types and bad values. */
export function readDeclarations(root: XElement): { variables: Map<string, Variable>; responseIds: Set<string> } {
  const variables = new Map<string, Variable>();
  const responseIds = new Set<string>();
  for (const d of elements(root)) {
    const isResponse = d.name === 'qti-response-declaration';
    if (!isResponse && d.name !== 'qti-outcome-declaration') {
      if (d.name === 'qti-template-declaration') fail('declares template variables (template processing is not supported)');
      fail(`has the element ${d.name} among its declarations`);
    }
    const id = d.attrs['identifier'] ?? '';
    if (!IDENTIFIER.test(id) || id.length > 200) fail(`declares a variable with the identifier "${id.slice(0, 40)}", which is not one`);
    if (variables.has(id)) fail(`declares ${id} twice`);
    const card = d.attrs['cardinality'] ?? '';
    if (card === 'record') fail(`declares ${id} with record cardinality, which is not supported`);
    if (card !== 'single' && card !== 'multiple' && card !== 'ordered') fail(`declares ${id} with the unknown cardinality "${card.slice(0, 40)}"`);
    const base = baseTypeOf(d, `declaration of ${id}`);
    const cardinality = card as Card;
    const declaredDefault = values(first(d, 'qti-default-value'), cardinality, base, `default value of ${id}`);
    // An outcome without a default value starts at 0 when it is a single number (SCORE, MAXSCORE), at NULL otherwise.
    const defaultValue = declaredDefault ?? (!isResponse && cardinality === 'single' && isNumeric(base) ? 0 : null);
    const mapping = first(d, 'qti-mapping');
    const area = first(d, 'qti-area-mapping');
    if (area && base !== 'point') fail(`declares an area mapping on ${id}, which is not a point`);
    variables.set(id, {
      identifier: id,
      cardinality,
      baseType: base,
      defaultValue,
      correct: isResponse ? values(first(d, 'qti-correct-response'), cardinality, base, `correct response of ${id}`) : null,
      mapping: isResponse && mapping ? mappingOf(mapping, base, id) : null,
      areaMapping: isResponse && area ? areaMappingOf(area, id) : null,
      lookup: isResponse ? null : lookupOf(d, base, id),
    });
    if (isResponse) responseIds.add(id);
  }
  return { variables, responseIds };
}
