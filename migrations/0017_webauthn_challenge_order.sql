-- Passkey registration challenges are capped per staff member (the newest
-- few are kept, older unused ones are replaced), so a page asking for options
-- in a loop cannot fill the table. The cap needs the order the challenges
-- were issued in, which expires_at cannot give (two requests in the same
-- millisecond); existing rows get numbers in whatever order they are read.
ALTER TABLE webauthn_challenges ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX webauthn_challenges_staff ON webauthn_challenges (staff_id, seq DESC) WHERE staff_id IS NOT NULL;
