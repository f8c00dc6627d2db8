-- Which editor instance (a staff member in one browser tab: `staffId:tabId`)
-- wrote a draft's latest revision, and the revision its uninterrupted run of
-- saves started from. A save from an older revision is then no conflict when
-- every revision since was that same instance's (a reload racing its own
-- last save); anyone else's save in between still makes it one
-- (docs/authoring.md "Drafts"). Existing drafts: no instance, so every stale
-- save stays a conflict as before.
ALTER TABLE test_drafts ADD COLUMN editor_instance text CHECK (length(editor_instance) <= 200);
ALTER TABLE test_drafts ADD COLUMN editor_run_from integer;
