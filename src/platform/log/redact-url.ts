/**
 * URLs as they may be logged: nothing in them that works as a credential.
 * - A start link carries its bearer-like token in the path: `/s/[redacted]`;
 *   so does a candidate report's link: `/reports/[redacted]`.
 * - Query values under a credential-looking name (`api_key`, `token`,
 *   `password`, `sig`, any `…_token`, an LTI login's hints and a registration
 *   invite, …), and any value shaped like one of our own secrets
 *   (`ak_live_…`, `whsec_…`, `adm_…`) whatever its name, become `[redacted]`:
 *   clients do send keys as query parameters, and an access log is read by
 *   more people than the key's owner. Other parameters stay readable.
 */
const CREDENTIAL_NAME =
  /^(api[-_]?key|apikey|key|access[-_]?key|token|[a-z]+[-_]token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|sig|signature|session|sessionid|csrf|invite|login[-_]hint|lti[-_]message[-_]hint)$/i;
const SECRET_SHAPE = /^(ak_(live|test)_|whsec_|adm_)/;

export function redactUrl(url: string): string {
  // Start links and portal sign-in links carry a bearer-like token in the path.
  const start = url.replace(/^\/s\/[^/?#]+/, '/s/[redacted]').replace(/^\/portal\/sign-in\/link\/[^/?#]+/, '/portal/sign-in/link/[redacted]')
    // A candidate report's link (its token is the only key to the report).
    .replace(/^\/reports\/(?!assets\/)[^/?#]+/, '/reports/[redacted]');
  const q = start.indexOf('?');
  if (q === -1) return start;
  const query = start
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq === -1) return part;
      const name = safeDecode(part.slice(0, eq));
      const value = safeDecode(part.slice(eq + 1));
      return CREDENTIAL_NAME.test(name) || SECRET_SHAPE.test(value) ? `${part.slice(0, eq)}=[redacted]` : part;
    })
    .join('&');
  return `${start.slice(0, q)}?${query}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
