import type { SafeHtml } from '../../../platform/web/html.js';
import type { ContentFormat } from './content-format.js';
import { testMathBudget, type MathBudget } from './math-limits.js';
import { renderContent } from './render-content.js';

interface CachedVersion {
  fields: Map<string, { source: string; out: SafeHtml }>;
  budget: MathBudget;
}

/**
 * Rendered content of immutable test versions, kept in-process: a page with
 * forty formulas renders them once per version, not per request. Keyed by
 * version id, then by the field (`q_….prompt`, `sec_….instructions`, …);
 * bounded by versions, the least recently used version out first. A draft
 * (the editor's preview) has no version id and calls renderContent itself.
 *
 * A version's fields share one budget for formulas (math-limits.ts), twice
 * what authoring allows a test (a field may be rendered both as a block and
 * inline): a version saved before the bounds, or past them, shows its
 * remaining formulas as their source instead of holding the event loop.
 */
export interface ContentCache {
  render(version: { testVersionId: string; contentFormat: ContentFormat }, field: string, source: string, opts?: { inline?: boolean }): SafeHtml;
  /** How many versions are held. */
  readonly size: number;
  /** Where this cache's pages fetch an asset (the student's or staff's route): an image a type draws itself (question-types/image-regions). */
  assetUrl(assetId: string): string;
}

export function createContentCache(opts: { assetUrl: (assetId: string) => string; maxVersions?: number }): ContentCache {
  const maxVersions = opts.maxVersions ?? 200;
  const versions = new Map<string, CachedVersion>();
  return {
    render(version, field, source, { inline = false } = {}) {
      let held = versions.get(version.testVersionId);
      if (held) {
        // Refresh its place: the map's order is the recency order.
        versions.delete(version.testVersionId);
        versions.set(version.testVersionId, held);
      } else {
        if (versions.size >= maxVersions) versions.delete(versions.keys().next().value!);
        held = { fields: new Map(), budget: testMathBudget(2) };
        versions.set(version.testVersionId, held);
      }
      const key = `${inline ? 'inline' : 'block'}:${field}`;
      const cached = held.fields.get(key);
      if (cached?.source === source) return cached.out;
      // A parametrised question's text differs per candidate (their values in place of `{name}`): only the version's own text is kept.
      if (cached) return renderContent(source, version.contentFormat, { assetUrl: opts.assetUrl, inline, budget: testMathBudget(2) });
      const out = renderContent(source, version.contentFormat, { assetUrl: opts.assetUrl, inline, budget: held.budget });
      held.fields.set(key, { source, out });
      return out;
    },
    get size() {
      return versions.size;
    },
    assetUrl: opts.assetUrl,
  };
}
