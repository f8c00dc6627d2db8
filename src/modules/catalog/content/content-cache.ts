import type { SafeHtml } from '../../../platform/web/html.js';
import type { ContentFormat } from './content-format.js';
import { renderContent } from './render-content.js';

/**
 * Rendered content of immutable test versions, kept in-process: a page with
 * forty formulas renders them once per version, not per request. Keyed by
 * version id, then by the field (`q_….prompt`, `sec_….instructions`, …);
 * bounded by versions, the least recently used version out first. A draft
 * (the editor's preview) has no version id and calls renderContent itself.
 */
export interface ContentCache {
  render(version: { testVersionId: string; contentFormat: ContentFormat }, field: string, source: string, opts?: { inline?: boolean }): SafeHtml;
  /** How many versions are held. */
  readonly size: number;
}

export function createContentCache(opts: { assetUrl: (assetId: string) => string; maxVersions?: number }): ContentCache {
  const maxVersions = opts.maxVersions ?? 200;
  const versions = new Map<string, Map<string, SafeHtml>>();
  return {
    render(version, field, source, { inline = false } = {}) {
      let fields = versions.get(version.testVersionId);
      if (fields) {
        // Refresh its place: the map's order is the recency order.
        versions.delete(version.testVersionId);
        versions.set(version.testVersionId, fields);
      } else {
        if (versions.size >= maxVersions) versions.delete(versions.keys().next().value!);
        fields = new Map();
        versions.set(version.testVersionId, fields);
      }
      const key = `${inline ? 'inline' : 'block'}:${field}`;
      let out = fields.get(key);
      if (!out) {
        out = renderContent(source, version.contentFormat, { assetUrl: opts.assetUrl, inline });
        fields.set(key, out);
      }
      return out;
    },
    get size() {
      return versions.size;
    },
  };
}
