import { importJWK, type JWK, type JWTHeaderParameters } from 'jose';
import type { GuardedHttp } from './guarded-http.js';

/**
 * The platforms' public key sets, fetched through the address guard and
 * kept for CACHE_MS. A token whose `kid` is not in the cached set makes one
 * fresh fetch (the platform may have rotated its key), at most once per
 * REFETCH_COOLDOWN_MS per key set, so a stream of tokens naming unknown keys
 * cannot turn Assay into a fetcher of someone's URL.
 */
export const CACHE_MS = 10 * 60 * 1000;
export const REFETCH_COOLDOWN_MS = 5_000;

interface CachedSet {
  keys: JWK[];
  fetchedAt: number;
}

export class KeySetError extends Error {
  override name = 'KeySetError';
}

export function createPlatformKeys(http: GuardedHttp, now: () => number = Date.now) {
  const sets = new Map<string, CachedSet>();
  const inFlight = new Map<string, Promise<CachedSet>>();

  async function fetchSet(url: string): Promise<CachedSet> {
    let p = inFlight.get(url);
    if (!p) {
      p = (async () => {
        const res = await http.send(url, { method: 'GET', headers: { accept: 'application/json' } });
        if (res.statusCode !== 200) throw new KeySetError(`the key set answered ${res.statusCode}`);
        let body: unknown;
        try {
          body = JSON.parse(res.body);
        } catch {
          throw new KeySetError('the key set is not JSON');
        }
        const keys = (body as { keys?: unknown })?.keys;
        if (!Array.isArray(keys)) throw new KeySetError('the key set has no "keys" array');
        const set = { keys: keys.filter((k): k is JWK => typeof k === 'object' && k !== null), fetchedAt: now() };
        if (sets.size >= 1000) sets.delete(sets.keys().next().value!);
        sets.set(url, set);
        return set;
      })().finally(() => inFlight.delete(url));
      inFlight.set(url, p);
    }
    return p;
  }

  function pick(set: CachedSet, header: JWTHeaderParameters): JWK | undefined {
    const rsa = set.keys.filter((k) => k.kty === 'RSA' && (k.use === undefined || k.use === 'sig') && (k.alg === undefined || k.alg === 'RS256'));
    if (header.kid !== undefined) return rsa.find((k) => k.kid === header.kid);
    // No kid: acceptable only when the set holds a single signing key.
    return rsa.length === 1 ? rsa[0] : undefined;
  }

  return {
    /** The verification key for a token's header from the set at `url`. */
    async keyFor(url: string, header: JWTHeaderParameters) {
      let set = sets.get(url);
      if (!set || now() - set.fetchedAt > CACHE_MS) set = await fetchSet(url);
      let jwk = pick(set, header);
      if (!jwk && now() - set.fetchedAt >= REFETCH_COOLDOWN_MS) {
        set = await fetchSet(url);
        jwk = pick(set, header);
      }
      if (!jwk) throw new KeySetError(`no key ${header.kid ? `with kid ${JSON.stringify(header.kid)} ` : ''}in the platform's key set`);
      return importJWK({ ...jwk, alg: 'RS256' }, 'RS256');
    },
    forget(url: string) {
      sets.delete(url);
    },
  };
}
