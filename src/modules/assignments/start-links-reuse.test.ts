import { describe, expect, it, vi } from 'vitest';

// Counts the HMACs computed, to show a repeated issue reuses the signed link.
const hmacCalls = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../platform/crypto.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../platform/crypto.js')>();
  return {
    ...real,
    hmacSha256: (...args: Parameters<typeof real.hmacSha256>) => {
      hmacCalls.n++;
      return real.hmacSha256(...args);
    },
  };
});
const { createLinkSigner } = await import('./start-links.js');

const SECRET = 'new-secret-0123456789abcdef0123456789abcdef';
const BASE = 'https://assay.example';
const NOW = new Date('2031-05-01T10:00:00.000Z');
const EXPIRY = new Date('2031-05-08T10:00:00.000Z');
const ID = 'asg_0123456789ABCDEFGHIJKL';

describe('start links signed once per (assignment, link version, expiry second)', () => {
  it('a repeated issue returns the same link without signing again, byte for byte what a fresh signer signs', () => {
    const signer = createLinkSigner([SECRET], BASE);
    const first = signer.issue(ID, 1, EXPIRY);
    const before = hmacCalls.n;
    // Another Date in the same second: the token carries whole seconds, so it is the same link.
    const again = signer.issue(ID, 1, new Date(EXPIRY.getTime() + 999));
    expect(hmacCalls.n).toBe(before);
    expect(again.url).toBe(first.url);
    expect(createLinkSigner([SECRET], BASE).issue(ID, 1, EXPIRY)).toEqual(first);
    expect(signer.verify(again.token, NOW)).toEqual({ ok: true, assignmentId: ID, linkVersion: 1, expiresAt: EXPIRY });
  });

  it('a new link version, expiry second or assignment is signed anew and verifies as itself', () => {
    const signer = createLinkSigner([SECRET], BASE);
    const v1 = signer.issue(ID, 1, EXPIRY);
    const before = hmacCalls.n;
    const v2 = signer.issue(ID, 2, EXPIRY);
    const later = signer.issue(ID, 1, new Date(EXPIRY.getTime() + 1000));
    const other = signer.issue('asg_ZYXWVUTSRQPONMLKJIHGFE', 1, EXPIRY);
    expect(hmacCalls.n).toBe(before + 3);
    expect(new Set([v1.token, v2.token, later.token, other.token]).size).toBe(4);
    expect(signer.verify(v2.token, NOW)).toMatchObject({ ok: true, linkVersion: 2 });
    expect(signer.verify(later.token, NOW)).toMatchObject({ ok: true, expiresAt: new Date(EXPIRY.getTime() + 1000) });
  });

  it("issueOnce signs the same link without keeping it: a new assignment's link does not churn the reads' links out", () => {
    const signer = createLinkSigner([SECRET], BASE);
    const before = hmacCalls.n;
    const once = signer.issueOnce(ID, 1, EXPIRY);
    const read = signer.issue(ID, 1, EXPIRY);
    // Not kept by issueOnce: the read signs it again, to the same bytes.
    expect(hmacCalls.n).toBe(before + 2);
    expect(read).toEqual(once);
    expect(signer.verify(once.token, NOW)).toEqual({ ok: true, assignmentId: ID, linkVersion: 1, expiresAt: EXPIRY });
  });

  it('a rotated secret signs with its own key: nothing of the old signer is reused', () => {
    const old = createLinkSigner(['old-secret-0123456789abcdef0123456789abcdef'], BASE);
    const rotated = createLinkSigner([SECRET, 'old-secret-0123456789abcdef0123456789abcdef'], BASE);
    const a = old.issue(ID, 1, EXPIRY);
    const b = rotated.issue(ID, 1, EXPIRY);
    expect(b.token.split('.')[0]).not.toBe(a.token.split('.')[0]);
    expect(rotated.verify(b.token, NOW)).toMatchObject({ ok: true });
  });

  it('stays bounded: after many other links, the first is signed again, identically', () => {
    const signer = createLinkSigner([SECRET], BASE);
    const first = signer.issue(ID, 1, EXPIRY);
    for (let i = 0; i < 5000; i++) signer.issue(ID, 1, new Date(EXPIRY.getTime() + (i + 1) * 1000));
    const before = hmacCalls.n;
    expect(signer.issue(ID, 1, EXPIRY)).toEqual(first);
    expect(hmacCalls.n).toBe(before + 1);
  });
});
