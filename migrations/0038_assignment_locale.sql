-- The candidate's language (docs/languages.md): `locale` as the partner sent it
-- on POST /assignments (BCP 47, echoed on the read), and `candidate_locale`,
-- the language the candidate chose on the intro page, which the pages, the
-- report and the mails prefer. Both null for every existing assignment, which
-- keeps being shown as it was chosen before: by the browser's languages.
ALTER TABLE assignments ADD COLUMN locale text CHECK (length(locale) <= 35);
ALTER TABLE assignments ADD COLUMN candidate_locale text CHECK (length(candidate_locale) <= 35);
