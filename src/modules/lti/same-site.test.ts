import { describe, expect, it } from 'vitest';
import { sameSite } from './same-site.js';

describe("dynamic registration's issuer check (same registrable domain, Public Suffix List)", () => {
  it('accepts hosts of one registrable domain', () => {
    expect(sameSite('canvas.instructure.com', 'sso.instructure.com')).toBe(true);
    expect(sameSite('lms.example.co.uk', 'auth.example.co.uk')).toBe(true);
    expect(sameSite('moodle.uni.edu', 'MOODLE.uni.edu.')).toBe(true);
    expect(sameSite('127.0.0.1', '127.0.0.1')).toBe(true);
  });

  it('refuses siblings under a public suffix: co.uk, github.io', () => {
    expect(sameSite('evil.co.uk', 'lms.co.uk')).toBe(false);
    expect(sameSite('attacker.github.io', 'school.github.io')).toBe(false);
    expect(sameSite('lms.example.co.uk', 'lms.other.co.uk')).toBe(false);
  });

  it('refuses different domains, a public suffix itself, and addresses that differ', () => {
    expect(sameSite('lms.example.edu', 'lms.example.com')).toBe(false);
    expect(sameSite('co.uk', 'example.co.uk')).toBe(false);
    expect(sameSite('github.io', 'school.github.io')).toBe(false);
    expect(sameSite('127.0.0.1', 'localhost')).toBe(false);
    expect(sameSite('10.0.0.1', '10.0.0.2')).toBe(false);
  });
});
