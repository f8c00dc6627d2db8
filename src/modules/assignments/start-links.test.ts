import { describe, expect, it } from 'vitest';
import { createLinkSigner, START_LINK_TTL_MS } from './start-links.js';

const OLD = 'old-secret-0123456789abcdef0123456789abcdef';
const NEW = 'new-secret-0123456789abcdef0123456789abcdef';
const BASE = 'https://assay.example';
const NOW = new Date('2031-05-01T10:00:00.000Z');
const LATER = new Date('2031-05-02T10:00:00.000Z');
const ID = 'asg_0123456789ABCDEFGHIJKL';

const signer = createLinkSigner([NEW], BASE);
const tokenFor = (s = signer, id = ID, version = 1, expires = LATER) => s.issue(id, version, expires).token;

/** Flips one character of `s` at `i` to another base64url character. */
const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);

describe('start-link signer', () => {
  it('issues {base}/s/{token} and verifies its own token with the assignment, version and expiry', () => {
    const { token, url } = signer.issue(ID, 3, LATER);
    expect(url).toBe(`${BASE}/s/${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(signer.verify(token, NOW)).toEqual({ ok: true, assignmentId: ID, linkVersion: 3, expiresAt: LATER });
  });

  it('the token is URL-safe and never contains the secret', () => {
    const { token, url } = signer.issue(ID, 1, LATER);
    expect(encodeURIComponent(token)).toBe(token);
    expect(url).not.toContain(NEW);
    expect(Buffer.from(token.split('.')[1]!, 'base64url').toString()).not.toContain(NEW);
  });

  it.each([0, 1, 2])('tampering with part %i of the token makes it invalid', (part) => {
    const parts = tokenFor().split('.');
    for (let i = 0; i < parts[part]!.length; i += 3) {
      const tampered = [...parts];
      tampered[part] = flip(parts[part]!, i);
      expect(signer.verify(tampered.join('.'), NOW)).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('a payload re-encoded for another assignment, version or later expiry is invalid', () => {
    const [kid, , sig] = tokenFor().split('.');
    const forge = (payload: string) => `${kid}.${Buffer.from(payload).toString('base64url')}.${sig}`;
    const exp = Math.floor(LATER.getTime() / 1000);
    expect(signer.verify(forge(`asg_OTHER0123456789ABCDEFG.${exp}.1`), NOW)).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify(forge(`${ID}.${exp}.2`), NOW)).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify(forge(`${ID}.${exp + 86_400}.1`), NOW)).toEqual({ ok: false, reason: 'invalid' });
  });

  it.each([
    ['an empty string', ''],
    ['two parts', 'a.b'],
    ['four parts', 'a.b.c.d'],
    ['garbage', '%%%'],
    ['a very long token', 'a'.repeat(600)],
  ])('%s is invalid', (_label, token) => {
    expect(signer.verify(token, NOW)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('padding or dropping characters is invalid', () => {
    const token = tokenFor();
    expect(signer.verify(`${token}=`, NOW).ok).toBe(false);
    expect(signer.verify(token.slice(0, -1), NOW).ok).toBe(false);
    expect(signer.verify(` ${token}`, NOW).ok).toBe(false);
  });

  it('a token is expired at its expiry instant and after, with the assignment named so the page can say what to do', () => {
    const token = tokenFor();
    expect(signer.verify(token, new Date(LATER.getTime() - 1)).ok).toBe(true);
    expect(signer.verify(token, LATER)).toEqual({ ok: false, reason: 'expired', assignmentId: ID, linkVersion: 1 });
    expect(signer.verify(token, new Date(LATER.getTime() + 1000)).ok).toBe(false);
  });

  it('a token signed with another secret is invalid', () => {
    const other = createLinkSigner(['another-secret-0123456789abcdef0123456789'], BASE);
    expect(other.verify(tokenFor(), NOW)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('rotation: a token signed by an old secret still verifies when the old secret is listed second', () => {
    const old = createLinkSigner([OLD], BASE);
    const rotated = createLinkSigner([NEW, OLD], BASE);
    const oldToken = tokenFor(old);
    expect(rotated.verify(oldToken, NOW)).toEqual({ ok: true, assignmentId: ID, linkVersion: 1, expiresAt: LATER });
    // New links are signed with the first secret, so dropping the old one later keeps them valid.
    const fresh = tokenFor(rotated);
    expect(fresh.split('.')[0]).not.toBe(oldToken.split('.')[0]);
    expect(createLinkSigner([NEW], BASE).verify(fresh, NOW).ok).toBe(true);
    // Once the old secret is removed, its tokens stop verifying.
    expect(createLinkSigner([NEW], BASE).verify(oldToken, NOW)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('an old secret’s key id with a signature made by the new secret is invalid', () => {
    const rotated = createLinkSigner([NEW, OLD], BASE);
    const oldKid = tokenFor(createLinkSigner([OLD], BASE)).split('.')[0]!;
    const [, payload, sig] = tokenFor(rotated).split('.');
    expect(rotated.verify(`${oldKid}.${payload}.${sig}`, NOW)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('expiryFor is min(now + 7 days, dueAt), in whole seconds, never after dueAt', () => {
    expect(signer.expiryFor(NOW, null)).toEqual(new Date(NOW.getTime() + START_LINK_TTL_MS));
    expect(START_LINK_TTL_MS).toBe(7 * 24 * 3600 * 1000);
    expect(signer.expiryFor(NOW, LATER)).toEqual(LATER);
    const far = new Date(NOW.getTime() + 30 * 86_400_000);
    expect(signer.expiryFor(NOW, far)).toEqual(new Date(NOW.getTime() + START_LINK_TTL_MS));
    const odd = new Date(LATER.getTime() + 999);
    expect(signer.expiryFor(NOW, odd)).toEqual(LATER);
    expect(signer.expiryFor(new Date(NOW.getTime() + 400), null)).toEqual(new Date(NOW.getTime() + START_LINK_TTL_MS));
  });

  it('the expiry carried in the token is exactly the expiry reported beside it', () => {
    const expires = signer.expiryFor(NOW, null);
    const verified = signer.verify(signer.issue(ID, 1, expires).token, NOW);
    expect(verified.ok && verified.expiresAt.getTime()).toBe(expires.getTime());
  });

  it('refuses to build without a secret', () => {
    expect(() => createLinkSigner([], BASE)).toThrow();
  });
});
