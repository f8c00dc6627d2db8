-- Issue 32: binding LTI pages to the browser that opened them (docs/lti.md).

-- A deep-linking picker is used once, by the browser that received it: the
-- hash of the value of the picker's cookie. Pickers pending when this runs
-- (an hour at most) are dropped: their instructor opens the picker again.
DELETE FROM lti_deep_link_requests;
ALTER TABLE lti_deep_link_requests ADD COLUMN browser_hash text NOT NULL;

-- The login's lti_storage_target (LTI Client Side postMessages): the frame
-- of the platform that keeps the login's browser binding when the browser
-- drops the tool's cookie in the course's frame. Null: the cookie only.
ALTER TABLE lti_login_states ADD COLUMN storage_target text;
