import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../platform/errors.js';

/**
 * SSRF defence for webhook URLs. Two layers:
 * 1. At registration, the URL itself: https only, no credentials, no
 *    literal address or well-known name of a non-public network.
 * 2. On every connection, the address actually connected to: the host name
 *    is resolved, every address is checked, and the socket connects to a
 *    checked address (the guarded lookup below is handed to the HTTP
 *    client), so DNS rebinding between check and use cannot pass.
 * Public means ipaddr.js's `unicast` range: private (RFC 1918), loopback,
 * link-local (and so 169.254.169.254, the cloud metadata address), CGNAT,
 * unique-local (fc00::/7), multicast and reserved are refused. Every IPv6
 * form that carries an IPv4 address (IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-translated ::ffff:0:a.b.c.d, the deprecated IPv4-compatible ::a.b.c.d,
 * NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) is
 * judged by the IPv4 address(es) it carries, since a gateway on the way may
 * deliver it there. Host names are compared without their trailing dots
 * (`metadata.` is the one-label name `metadata`). Limit: an allowed public
 * host can still proxy requests onward; that is the partner's own
 * infrastructure. `allowInsecure` (ASSAY_ALLOW_INSECURE_URLS) additionally
 * allows http: and loopback, for local development and tests only.
 * `development` (the embedded database, no DATABASE_URL) only changes what a
 * refusal says: one the switch would lift names it, so a developer pointing
 * Assay at a local receiver learns how; production never advertises it.
 */
export interface UrlPolicy {
  allowInsecure: boolean;
  development?: boolean;
}

const LOCAL_HINT = 'to test with a receiver on this machine, start this development server with ASSAY_ALLOW_INSECURE_URLS=1';

export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
  constructor(readonly host: string, readonly address: string) {
    super(`${host} resolves to ${address}, which is not a public address`);
  }
}

const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 addresses an IPv6 address carries (empty for a plain IPv6 address). */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = ip.parts;
  const range = ip.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return [v4(p[6]!, p[7]!)];
  // NAT64 local-use prefix (RFC 8215), which ipaddr.js does not name.
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return [v4(p[6]!, p[7]!)];
  if (range === '6to4') return [v4(p[1]!, p[2]!)];
  // Teredo: the server's address in clear, the client's with every bit inverted.
  if (range === 'teredo') return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  // IPv4-compatible (::a.b.c.d): the first 96 bits zero; :: and ::1 are IPv6's own unspecified and loopback.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)];
  return [];
}

function isIPv4Allowed(ip: ipaddr.IPv4, policy: UrlPolicy): boolean {
  const range = ip.range();
  return range === 'unicast' || (policy.allowInsecure && range === 'loopback');
}

export function isAddressAllowed(address: string, policy: UrlPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return isIPv4Allowed(ip as ipaddr.IPv4, policy);
  const carried = embeddedIPv4(ip as ipaddr.IPv6);
  if (carried.length > 0) return carried.every((c) => isIPv4Allowed(c, policy));
  const range = ip.range();
  return range === 'unicast' || (policy.allowInsecure && range === 'loopback');
}

const BLOCKED_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa|intranet|lan|corp)$/i;

function refuse(message: string, policy?: UrlPolicy): AppError {
  if (policy?.development && !policy.allowInsecure) message = `${message} (${LOCAL_HINT})`;
  return new AppError('webhook_url_not_allowed', `url: ${message}`, [{ field: 'url', message }]);
}

/** Registration-time checks; returns the normalised URL. The connection-time check stays the real guard. */
export function checkEndpointUrl(raw: string, policy: UrlPolicy): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('invalid_request', 'url: must be an absolute URL', [{ field: 'url', message: 'must be an absolute URL' }]);
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    throw refuse('must use https:', policy);
  }
  if (url.username || url.password) throw refuse('must not contain credentials');
  if (url.hash) throw refuse('must not contain a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    if (!isAddressAllowed(host, policy)) {
      const loopback = isAddressAllowed(host, { allowInsecure: true });
      throw refuse(`${host} is not a public address`, loopback ? policy : undefined);
    }
  } else {
    // `metadata.` is the one-label name `metadata`: judge the name without its trailing dots.
    const name = host.replace(/\.+$/, '');
    if (!name.includes('.') || BLOCKED_NAMES.test(name)) {
      const localhost = /(^|\.)localhost$/i.test(name);
      if (!(policy.allowInsecure && localhost)) throw refuse(`${host} is not a public host name`, localhost ? policy : undefined);
    }
  }
  return url.toString();
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect: resolves with `resolver`, refuses the host
 * if any of its addresses is not allowed (a host with one public and one
 * private address is refused), and hands back only checked addresses.
 */
export function guardedLookup(policy: UrlPolicy, resolver: Resolver = systemResolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        const bad = addresses.find((a) => !isAddressAllowed(a.address, policy));
        if (bad) return callback(new AddressNotAllowedError(hostname, bad.address) as unknown as NodeJS.ErrnoException, '');
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, wanted);
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** Connection-time check for a URL whose host is a literal address (connect() skips lookup for those). */
export function checkLiteralHost(url: URL, policy: UrlPolicy): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !isAddressAllowed(host, policy)) throw new AddressNotAllowedError(host, host);
}
