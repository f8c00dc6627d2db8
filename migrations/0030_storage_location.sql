-- Where local file storage lives (src/platform/storage/storage-location.ts).
-- Local storage is a folder on one host: two hosts sharing this database
-- with folders of their own would each answer 404 for the other's files. The
-- first serving process on local storage records its folder here; a process
-- whose folder is elsewhere refuses to start. One row at most: the check
-- constraint on `only_one` makes the primary key a singleton.
CREATE TABLE storage_location (
  only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
  -- The random id also written in the folder's marker file: on a shared mount
  -- (ASSAY_STORAGE_SHARED) it is what proves a folder is this one.
  storage_id text NOT NULL,
  host text NOT NULL,
  folder text NOT NULL,
  registered_at timestamptz NOT NULL DEFAULT now()
);
