/**
 * The three standard response processing templates, as QTI 3.0 publishes
 * them (rptemplates/match_correct.xml, map_response.xml,
 * map_response_point.xml), and the names their 2.1 / 2.2 / 3.0 URIs end in.
 */
const ifNullElse = (mapper: string) => `<qti-response-processing>
  <qti-response-condition>
    <qti-response-if>
      <qti-is-null><qti-variable identifier="RESPONSE"/></qti-is-null>
      <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0.0</qti-base-value></qti-set-outcome-value>
    </qti-response-if>
    <qti-response-else>
      <qti-set-outcome-value identifier="SCORE"><${mapper} identifier="RESPONSE"/></qti-set-outcome-value>
    </qti-response-else>
  </qti-response-condition>
</qti-response-processing>`;

export const STANDARD_TEMPLATES = {
  match_correct: `<qti-response-processing>
  <qti-response-condition>
    <qti-response-if>
      <qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match>
      <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1</qti-base-value></qti-set-outcome-value>
    </qti-response-if>
    <qti-response-else>
      <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0</qti-base-value></qti-set-outcome-value>
    </qti-response-else>
  </qti-response-condition>
</qti-response-processing>`,
  map_response: ifNullElse('qti-map-response'),
  map_response_point: ifNullElse('qti-map-response-point'),
} as const;

export type TemplateName = keyof typeof STANDARD_TEMPLATES;

/**
 * Common Cartridge's templates that score exactly as a standard one:
 * CC2_match is match_correct's body; CC2_map_response is map_response's, then
 * sets a FEEDBACK outcome from the score (which the score does not read).
 * CC2_match_basic (SCORE = MAXSCORE) is not one of them.
 */
const ALIASES: Record<string, TemplateName> = { CC2_match: 'match_correct', CC2_map_response: 'map_response' };

/** The standard template a URI names (…/rptemplates/match_correct in 2.x, …/rptemplates/match_correct.xml in 3.0, or a Common Cartridge alias), or null. */
export function standardTemplate(uri: string): TemplateName | null {
  const m = /\/rptemplates\/(match_correct|map_response|map_response_point|CC2_match|CC2_map_response)(\.xml)?$/.exec(uri.trim());
  if (!m) return null;
  return ALIASES[m[1]!] ?? (m[1] as TemplateName);
}
