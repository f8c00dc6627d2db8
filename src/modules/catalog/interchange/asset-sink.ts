/**
 * Where an import puts the images its items show. The assets store
 * (`POST /api/admin/v1/assets`) provides one; until it does, an import runs
 * without a sink and skips each item that shows an image ("images are not
 * imported yet"), so no item is imported without its picture.
 */
export interface AssetSink {
  /** Stores one image (already checked: a known image type, an SVG without script) and returns its asset id (`ast_…`). */
  store(image: { path: string; contentType: string; bytes: Uint8Array }): Promise<{ assetId: string }>;
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The content type of an image file by its extension; null for anything else. */
export function imageType(path: string): string | null {
  return IMAGE_TYPES[path.split('.').pop()!.toLowerCase()] ?? null;
}

/**
 * Why an SVG is refused, or null when it is safe to store: no DTD, no script
 * element, no event handler attribute, no foreign content, no javascript: or
 * external links. Refusing rather than rewriting keeps the rule simple to
 * check; a clean SVG is stored as it is.
 */
export function svgProblem(bytes: Uint8Array): string | null {
  const text = new TextDecoder().decode(bytes);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return 'declares a DTD';
  if (/<script[\s>/]/i.test(text)) return 'holds a script';
  if (/\son[a-z]+\s*=/i.test(text)) return 'holds event handler attributes';
  if (/<foreignObject[\s>/]/i.test(text)) return 'holds foreign (HTML) content';
  if (/href\s*=\s*["']\s*(javascript|data|vbscript):/i.test(text)) return 'links to script';
  if (/(href|src)\s*=\s*["']\s*(https?:)?\/\//i.test(text) || /url\(\s*["']?\s*(https?:)?\/\//i.test(text)) return 'loads external resources';
  return null;
}
