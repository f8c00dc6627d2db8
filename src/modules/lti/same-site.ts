import { getDomain, parse } from 'tldts';

/**
 * Whether two host names belong to one site: the same registrable domain
 * under the Public Suffix List (tldts, ICANN and private sections), so
 * `a.example.co.uk` and `b.example.co.uk` are one site while `x.co.uk` and
 * `y.co.uk`, or `alice.github.io` and `bob.github.io`, are two. An IP
 * address, a host with no registrable domain (`localhost`) or a host that is
 * itself a public suffix matches only itself.
 */
export function sameSite(a: string, b: string): boolean {
  const hostA = a.toLowerCase().replace(/\.$/, '');
  const hostB = b.toLowerCase().replace(/\.$/, '');
  if (hostA === hostB) return true;
  if (parse(hostA).isIp || parse(hostB).isIp) return false;
  const domainA = getDomain(hostA, { allowPrivateDomains: true });
  const domainB = getDomain(hostB, { allowPrivateDomains: true });
  return domainA !== null && domainA === domainB;
}
