import { XMLParser, XMLValidator } from 'fast-xml-parser';
import sanitizeHtml from 'sanitize-html';
import { AppError } from '../../../platform/errors.js';

/** The image types an asset may be (docs/content.md), and the largest. */
export const ASSET_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
export const ASSET_MAX_BYTES = 5 * 1024 * 1024;

const NAMES: Record<AssetType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP', 'image/svg+xml': 'SVG' };

/** The declared Content-Type as one of ASSET_TYPES (parameters such as charset ignored), or null. */
export function assetTypeOf(contentType: string | undefined): AssetType | null {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return (ASSET_TYPES as readonly string[]).includes(t) ? (t as AssetType) : null;
}

const startsWith = (b: Buffer, bytes: number[], at = 0) => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The raster type the bytes are, by their magic numbers, or null. */
export function sniffRaster(b: Buffer): Exclude<AssetType, 'image/svg+xml'> | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/**
 * The bytes to store for an upload declared as `type`: a raster image as it
 * came, once its magic bytes agree with the type; an SVG only when it is
 * well-formed XML whose root is `svg`, then sanitised (sanitizeSvg).
 * Anything else is a 400 that says what the bytes are not.
 */
export function checkAssetBytes(type: AssetType, body: Buffer): Buffer {
  if (body.length === 0) throw invalid('The body is empty: send the image bytes.');
  if (type !== 'image/svg+xml') {
    const sniffed = sniffRaster(body);
    if (sniffed !== type) {
      throw invalid(`The body is not a ${NAMES[type]} image${sniffed ? ` (its bytes are ${NAMES[sniffed]}; send Content-Type: ${sniffed})` : ''}.`);
    }
    return body;
  }
  if (sniffRaster(body)) throw invalid(`The body is not an SVG image (its bytes are ${NAMES[sniffRaster(body)!]}).`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw invalid('The SVG is not valid UTF-8.');
  }
  return Buffer.from(sanitizeSvg(checkSvgXml(text)), 'utf8');
}

const invalid = (message: string) => new AppError('invalid_request', message, [{ field: 'body', message }]);

/** The SVG's text when it is well-formed XML with `svg` as root; a DOCTYPE (entities, external subsets) is refused. */
function checkSvgXml(text: string): string {
  const src = text.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE/i.test(src)) throw invalid('The SVG has a DOCTYPE: remove it (entities and external definitions are not accepted).');
  const valid = XMLValidator.validate(src);
  if (valid !== true) throw invalid(`The SVG is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`);
  const tree = new XMLParser({ preserveOrder: true, ignoreAttributes: true, processEntities: false }).parse(src) as Array<Record<string, unknown>>;
  const root = tree.map((node) => Object.keys(node).find((k) => k !== ':@')).find((k) => k && !k.startsWith('?') && !k.startsWith('#'));
  // Unprefixed only: the allow-list names elements without a prefix, so `svg:svg` would come out of it empty.
  if (root !== 'svg') throw invalid(`The XML's root element is ${root ? `"${root}"` : 'missing'}, not "svg".`);
  return src;
}

/** SVG elements kept: shapes, text, structure, paint servers, filters. Not script, foreignObject, style, image, a, animation. */
const SVG_TAGS = [
  'svg', 'g', 'defs', 'symbol', 'use', 'title', 'desc', 'metadata',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'filter', 'feGaussianBlur', 'feOffset', 'feBlend', 'feColorMatrix', 'feComposite', 'feFlood', 'feMerge', 'feMergeNode', 'feMorphology', 'feDropShadow',
];
/** Presentation and geometry attributes; no event handler (on*) is ever on it. */
const SVG_ATTRIBUTES = [
  'id', 'class', 'style', 'transform', 'viewBox', 'preserveAspectRatio', 'width', 'height', 'x', 'y', 'x1', 'y1', 'x2', 'y2',
  'cx', 'cy', 'r', 'rx', 'ry', 'd', 'points', 'pathLength', 'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap', 'stroke-linejoin',
  'stroke-dasharray', 'stroke-dashoffset', 'stroke-miterlimit', 'opacity', 'color', 'display', 'visibility', 'overflow',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline', 'alignment-baseline', 'letter-spacing',
  'clip-path', 'clip-rule', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'markerWidth', 'markerHeight',
  'refX', 'refY', 'orient', 'markerUnits', 'offset', 'stop-color', 'stop-opacity', 'gradientUnits', 'gradientTransform',
  'spreadMethod', 'fx', 'fy', 'patternUnits', 'patternContentUnits', 'patternTransform', 'clipPathUnits', 'maskUnits',
  'maskContentUnits', 'filterUnits', 'primitiveUnits', 'in', 'in2', 'result', 'stdDeviation', 'mode', 'operator', 'values',
  'type', 'k1', 'k2', 'k3', 'k4', 'flood-color', 'flood-opacity', 'radius', 'startOffset', 'method', 'spacing',
  'xmlns', 'xmlns:xlink', 'version', 'href', 'xlink:href', 'xml:space', 'role', 'aria-label', 'aria-hidden', 'focusable',
];

/** A reference outside the document (`url(http…)`, `href="https://…"`, `javascript:`): only `#fragment` and `url(#…)` are kept. */
const EXTERNAL_URL = /url\(\s*(?!['"]?#)/i;
/** CSS that loads or runs something whatever its argument: an import, old IE's expression(), images built in CSS. */
const CSS_LOADING = /@import|\b(expression|image-set|image|element|cross-fade|src)\s*\(/i;

/**
 * A CSS value as the browser reads it, for the filters above: escapes
 * decoded (`\75 rl(` is `url(`; CSS Syntax 4.3.7: up to six hex digits and
 * one optional whitespace, or the escaped character itself; an escaped
 * newline is nothing) and comments removed (so `ur/**\/l(` is judged as
 * `url(`: stricter than the browser, never looser).
 */
export function cssAsRead(value: string): string {
  return value
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, '')
    .replace(/\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\r\n\f])?|(\r\n|[\r\n\f])|([\s\S]))/g, (_m, hex: string | undefined, newline: string | undefined, char: string | undefined) => {
      if (newline !== undefined) return '';
      if (char !== undefined) return char;
      const code = parseInt(hex!, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
    });
}

/** Whether an attribute's value (`style`, or a presentation attribute, both read as CSS) refers outside the file or loads anything. */
function unsafeValue(value: string): boolean {
  const read = cssAsRead(value);
  return [value, read].some((v) => EXTERNAL_URL.test(v) || CSS_LOADING.test(v) || /^\s*(javascript|data|vbscript):/i.test(v));
}

/**
 * The SVG with only SVG_TAGS and SVG_ATTRIBUTES kept (sanitize-html with an
 * allow-list, in XML mode so case and namespaces survive): scripts, event
 * handlers, foreignObject, style elements, external references and
 * javascript: links go; an attribute value is judged as CSS reads it
 * (escapes decoded, comments out), so `fill:\75 rl(http://…)` goes too. Served from Assay with a CSP that forbids scripts
 * besides, and shown to students through <img>, where no script runs anyway.
 */
export function sanitizeSvg(svg: string): string {
  const cleaned = sanitizeHtml(svg, {
    allowedTags: SVG_TAGS,
    allowedAttributes: { '*': SVG_ATTRIBUTES },
    allowedSchemes: [],
    allowedSchemesAppliedToAttributes: [],
    disallowedTagsMode: 'discard',
    // The text of removed elements (a script's code, a style sheet) goes with them.
    nonTextTags: ['script', 'style', 'foreignObject', 'textarea', 'noscript'],
    parser: { xmlMode: true, lowerCaseTags: false, lowerCaseAttributeNames: false, recognizeSelfClosing: true },
    transformTags: {
      '*': (tagName, attribs) => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(attribs)) {
          if ((name === 'href' || name === 'xlink:href') && !value.trim().startsWith('#')) continue;
          if (unsafeValue(value)) continue;
          kept[name] = value;
        }
        if (tagName === 'svg' && !kept.xmlns) kept.xmlns = 'http://www.w3.org/2000/svg';
        return { tagName, attribs: kept };
      },
    },
  });
  return cleaned.trim();
}
