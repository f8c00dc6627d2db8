import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, createStaffRig, type StaffRig } from '../helpers/staff-rig.js';
import { catalogue } from '../helpers/catalogues.js';

/**
 * The sign-in mail speaks the language of the browser that asked for it
 * (its Accept-Language, kept with the mail's job), arriving at a real SMTP
 * server; a browser whose languages Assay has no catalogue for gets English.
 */
let r: StaffRig;

beforeAll(async () => {
  r = await createStaffRig();
});
afterAll(() => r.close());

async function askFrom(email: string, acceptLanguage: string) {
  const b = r.browser();
  const form = await b.get('/portal/sign-in', { 'accept-language': acceptLanguage });
  const asked = await b.post('/portal/sign-in', { csrf: csrfOf(form.body), email }, { 'accept-language': acceptLanguage });
  expect(asked.statusCode, asked.body).toBe(303);
  await r.mailedLinks(email);
  return r.smtp.to(email).at(-1)!;
}

describe('the sign-in mail in the browser’s language', () => {
  it('is Japanese for a Japanese browser and still carries its link', async () => {
    await r.invite(r.h.a.institutionId, 'kenji@alpha.example', 'reviewer');
    const ja = catalogue('ja');
    const mail = await askFrom('kenji@alpha.example', 'ja-JP,ja;q=0.9,en;q=0.5');
    expect(mail.subject).toBe(ja['mail.signIn.subject']);
    expect(mail.text).toContain(ja['mail.signIn.intro']);
    expect(mail.text).toContain(ja['mail.signIn.ignore']);
    expect(mail.text).not.toContain('Sign in with this link');
    expect(mail.text).toMatch(/\/portal\/sign-in\/[A-Za-z0-9_-]+/);
  });

  it('is Arabic for an Arabic browser and English for one Assay has no catalogue for', async () => {
    await r.invite(r.h.a.institutionId, 'laila@alpha.example', 'author');
    const ar = catalogue('ar');
    expect((await askFrom('laila@alpha.example', 'ar-EG')).subject).toBe(ar['mail.signIn.subject']);
    const english = await askFrom('laila@alpha.example', 'nl-NL, nl;q=0.9');
    expect(english.subject).toBe('Your sign-in link for Assay');
    expect(english.text).toContain('Someone (we hope you) asked to sign in');
  });
});
