/**
 * The plan for distributing Assay's database on Citus by institution, in a
 * form a test can hold against the live schema (citus-plan.test.ts); the
 * reasoning is in docs/scaling.md ("Beyond one primary"). Every table has a
 * decision here: a new table without one fails the test.
 *
 *  - distributed: sharded by `column` (institution_id), all co-located, so one
 *    institution's rows of every table live on one shard and its queries are
 *    router queries;
 *  - reference: a copy on every node (small, read by every institution, or
 *    shared between them: the catalog);
 *  - local: on the coordinator only (the process's own plumbing: migrations,
 *    the job queue, rate-limit buckets, throttles, short-lived LTI handshakes).
 */
export type TablePlan =
  | { kind: 'distributed'; column: string; /** The column is not there yet: how it arrives. */ addColumn?: string }
  | { kind: 'reference'; why: string }
  | { kind: 'local'; why: string };

export const DISTRIBUTION_COLUMN = 'institution_id';

const byInstitution: TablePlan = { kind: 'distributed', column: DISTRIBUTION_COLUMN };
const addInstitution = (from: string): TablePlan => ({
  kind: 'distributed',
  column: DISTRIBUTION_COLUMN,
  addColumn: `add institution_id NOT NULL, filled from ${from}`,
});

export const CITUS_PLAN: Readonly<Record<string, TablePlan>> = {
  // One institution's data: the partner API, the student pages, marking, proctoring, results, delivery.
  ai_suggestions: byInstitution,
  ai_usage: byInstitution,
  answer_files: byInstitution,
  answers: byInstitution,
  assignments: byInstitution,
  attempts: byInstitution,
  audit_log: byInstitution,
  callback_domains: byInstitution,
  candidate_feedback: byInstitution,
  events: byInstitution,
  idempotency_keys: byInstitution,
  lti_link_assignments: byInstitution,
  lti_registration_invites: byInstitution,
  lti_resource_links: byInstitution,
  lti_score_attempts: addInstitution('its score post (lti_score_posts.institution_id)'),
  lti_score_posts: byInstitution,
  marking_drafts: byInstitution,
  marking_opens: byInstitution,
  marks: byInstitution,
  pending_uploads: byInstitution,
  proctoring_flags: byInstitution,
  proctoring_sessions: byInstitution,
  proctoring_snapshots: byInstitution,
  publications: byInstitution,
  recording_segments: byInstitution,
  result_rollup: byInstitution,
  result_rollup_attempts: addInstitution('its assignment (assignments.institution_id)'),
  simulated_score_targets: byInstitution,
  student_sessions: byInstitution,
  users: byInstitution,
  webhook_attempts: byInstitution,
  webhook_deliveries: byInstitution,
  webhook_endpoints: byInstitution,

  // Small, read on every request or shared between institutions.
  institutions: { kind: 'reference', why: 'one row per institution, read by every request; every distributed table points to it' },
  api_keys: { kind: 'reference', why: 'a key is found by its hash before its institution is known; a few per institution, cached' },
  tests: { kind: 'reference', why: "the catalog: operators' tests are published to many institutions (owner_institution_id is null for them)" },
  test_versions: { kind: 'reference', why: 'frozen content of the catalog, read by every institution that assigns the test' },
  test_version_assets: { kind: 'reference', why: 'which assets a version uses: catalog' },
  assets: { kind: 'reference', why: 'content images of the catalog (the bytes are in storage)' },
  test_drafts: { kind: 'reference', why: 'the editor draft of a catalog test, one per test' },
  staff: { kind: 'reference', why: 'operators have no institution; a few hundred rows, read by every portal request' },
  staff_passkeys: { kind: 'reference', why: 'belongs to a staff member (reference)' },
  portal_sessions: { kind: 'reference', why: 'found by cookie hash before the institution is known; points to staff' },
  sign_in_links: { kind: 'reference', why: 'found by token hash; points to staff' },
  webauthn_challenges: { kind: 'reference', why: 'a sign-in ceremony of a staff member' },
  lti_platforms: { kind: 'reference', why: 'a launch names the platform by issuer and client id before the institution is known; few rows' },
  lti_tool_keys: { kind: 'reference', why: "the tool's own signing keys, one current for the whole installation" },

  // The coordinator's own.
  schema_migrations: { kind: 'local', why: 'migrations run on the coordinator, which propagates DDL' },
  jobs: { kind: 'local', why: 'the queue is claimed across institutions with SKIP LOCKED, which needs one node; no foreign keys' },
  rate_limit_buckets: { kind: 'local', why: 'UNLOGGED counters synced in one statement every 100 ms' },
  sign_in_throttle: { kind: 'local', why: 'per-address counters of the portal sign-in' },
  lti_login_states: { kind: 'local', why: 'an OIDC handshake of seconds, found by state hash; points to a platform (reference)' },
  lti_nonces: { kind: 'local', why: 'single-use launch nonces kept for minutes; points to a platform (reference)' },
  lti_deep_link_requests: { kind: 'local', why: 'a deep-linking choice in progress, found by hash; points to a platform (reference)' },
  storage_location: { kind: 'local', why: 'where local file storage lives: one row for the installation' },
  partition_plans: { kind: 'local', why: "the partition maintenance's own plan (which tables, which key); run from the coordinator, which propagates new partitions" },
};

/**
 * The changes distribution needs, each named once; docs/scaling.md explains
 * each with the same name.
 */
export const CHANGES = {
  'key-gains-institution':
    'The key gains institution_id in front: (institution_id, id). Ids are random and prefixed, so uniqueness is unchanged; ' +
    'keys scoped to an assignment or an event (sequence per assignment, one delivery per event and endpoint, one flag per signal) stay ' +
    "scoped, since an assignment's rows all share its institution.",
  'foreign-key-gains-institution':
    'The foreign key pairs institution_id too: (institution_id, assignment_id) → assignments (institution_id, id), once the referenced key has it.',
  'found-by-secret-hash':
    'Found by the hash of a secret (a cookie, an invite token) before the institution is known: the secret carries the institution id ' +
    '(ins_….<random>), the lookup becomes a router query, and the key (institution_id, hash).',
  'lti-keys-through-platform':
    "An LTI launch names its platform first (lti_platforms, a reference table, holds the platform's institution), so the key gains " +
    'institution_id from the platform without changing which rows are unique.',
  'add-institution-column':
    'The table gets institution_id NOT NULL (filled from its parent row in the same migration), then its key and foreign key gain it.',
  'operator-audit-entries':
    "Operators' audit entries have no institution: they go to a local table of their own (operator_audit_log), and audit_log's " +
    'institution_id becomes NOT NULL.',
  'webhook-claim-per-institution':
    'The claim function locks rows of many institutions at once (FOR UPDATE SKIP LOCKED across shards, which Citus refuses): the dispatcher ' +
    'first reads which institutions have due deliveries (one multi-shard read, no locks), then claims per institution, a router query run ' +
    'on its shard (create_distributed_function with institution_id as the distribution argument).',
  'cascade-triggers-per-institution':
    'The partitioned history tables delete their dependants with triggers (a foreign key cannot point into a partitioned table ' +
    'without its partition key). On Citus a trigger runs on each shard, so its DELETE must stay on that shard: it filters on ' +
    'institution_id = OLD.institution_id too, and triggers are allowed on distributed tables (citus.enable_unsafe_triggers) once they only touch co-located shards.',
} as const;

type Change = keyof typeof CHANGES;

/**
 * What blocks distribution today, each with its change: exactly what
 * findBlockers (citus-blockers.ts) reports on the migrated schema. Ids name
 * the constraint, so a key redefined under the same name keeps its line and
 * a renamed one changes one line; a key that a partitioned table keeps on
 * each partition is named by its kind and columns (`partition-primary-key(id)`),
 * the same for every month's partition.
 */
export const BLOCKERS_BY_CHANGE: Readonly<Record<Change, readonly string[]>> = {
  'key-gains-institution': [
    'unique-without-distribution-column:ai_suggestions.ai_suggestions_pkey',
    'unique-without-distribution-column:answer_files.answer_files_pkey',
    'unique-without-distribution-column:answer_files.answer_files_storage_key_key',
    'unique-without-distribution-column:answers.answers_pkey',
    'unique-without-distribution-column:assignments.assignments_pkey',
    'unique-without-distribution-column:attempts.attempts_pkey',
    'unique-without-distribution-column:candidate_feedback.candidate_feedback_pkey',
    'unique-without-distribution-column:audit_log.partition-primary-key(id)',
    'unique-without-distribution-column:events.partition-unique(assignment_id,sequence)',
    'unique-without-distribution-column:events.partition-primary-key(id)',
    'unique-without-distribution-column:lti_link_assignments.lti_link_assignments_assignment_id_key',
    'unique-without-distribution-column:lti_score_attempts.lti_score_attempts_pkey',
    'unique-without-distribution-column:lti_score_posts.lti_score_posts_event_id_key',
    'unique-without-distribution-column:lti_score_posts.lti_score_posts_pkey',
    'unique-without-distribution-column:marking_drafts.marking_drafts_pkey',
    'unique-without-distribution-column:marking_opens.marking_opens_pkey',
    'unique-without-distribution-column:marks.marks_pkey',
    'unique-without-distribution-column:pending_uploads.pending_uploads_pkey',
    'unique-without-distribution-column:proctoring_flags.proctoring_flags_assignment_id_signal_id_key',
    'unique-without-distribution-column:proctoring_flags.proctoring_flags_pkey',
    'unique-without-distribution-column:proctoring_sessions.proctoring_sessions_pkey',
    'unique-without-distribution-column:proctoring_snapshots.proctoring_snapshots_assignment_id_client_id_key',
    'unique-without-distribution-column:proctoring_snapshots.proctoring_snapshots_pkey',
    'unique-without-distribution-column:recording_segments.recording_segments_pkey',
    'unique-without-distribution-column:result_rollup_attempts.result_rollup_attempts_pkey',
    'unique-without-distribution-column:simulated_score_targets.simulated_score_targets_pkey',
    'unique-without-distribution-column:users.users_pkey',
    'unique-without-distribution-column:webhook_attempts.partition-primary-key(delivery_id,id)',
    'unique-without-distribution-column:webhook_deliveries.partition-unique(event_id,endpoint_id)',
    'unique-without-distribution-column:webhook_deliveries.partition-primary-key(id)',
    'unique-without-distribution-column:webhook_endpoints.webhook_endpoints_pkey',
  ],
  'foreign-key-gains-institution': [
    'foreign-key-without-distribution-column:ai_suggestions.ai_suggestions_assignment_id_fkey',
    'foreign-key-without-distribution-column:answer_files.answer_files_assignment_id_fkey',
    'foreign-key-without-distribution-column:answers.answers_assignment_id_fkey',
    'foreign-key-without-distribution-column:assignments.assignments_user_id_fkey',
    'foreign-key-without-distribution-column:attempts.attempts_assignment_id_fkey',
    'foreign-key-without-distribution-column:attempts.attempts_user_id_fkey',
    'foreign-key-without-distribution-column:candidate_feedback.candidate_feedback_assignment_id_fkey',
    'foreign-key-without-distribution-column:events.events_assignment_id_fkey',
    'foreign-key-without-distribution-column:idempotency_keys.idempotency_keys_assignment_id_fkey',
    'foreign-key-without-distribution-column:lti_link_assignments.lti_link_assignments_assignment_id_fkey',
    'foreign-key-without-distribution-column:lti_score_attempts.lti_score_attempts_score_post_id_fkey',
    'foreign-key-without-distribution-column:lti_score_posts.lti_score_posts_assignment_id_fkey',
    'foreign-key-without-distribution-column:marking_drafts.marking_drafts_assignment_id_fkey',
    'foreign-key-without-distribution-column:marking_opens.marking_opens_assignment_id_fkey',
    'foreign-key-without-distribution-column:marks.marks_assignment_id_fkey',
    'foreign-key-without-distribution-column:pending_uploads.pending_uploads_assignment_id_fkey',
    'foreign-key-without-distribution-column:proctoring_flags.proctoring_flags_assignment_id_fkey',
    'foreign-key-without-distribution-column:proctoring_sessions.proctoring_sessions_assignment_id_fkey',
    'foreign-key-without-distribution-column:proctoring_snapshots.proctoring_snapshots_assignment_id_fkey',
    'foreign-key-without-distribution-column:proctoring_snapshots.proctoring_snapshots_flag_id_fkey',
    'foreign-key-without-distribution-column:recording_segments.recording_segments_assignment_id_fkey',
    'foreign-key-without-distribution-column:result_rollup_attempts.result_rollup_attempts_assignment_id_fkey',
    'foreign-key-without-distribution-column:simulated_score_targets.simulated_score_targets_assignment_id_fkey',
    'foreign-key-without-distribution-column:student_sessions.student_sessions_assignment_id_fkey',
    'foreign-key-without-distribution-column:student_sessions.student_sessions_user_id_fkey',
    'foreign-key-without-distribution-column:webhook_deliveries.webhook_deliveries_endpoint_id_fkey',
  ],
  'found-by-secret-hash': [
    'unique-without-distribution-column:lti_registration_invites.lti_registration_invites_pkey',
    'unique-without-distribution-column:student_sessions.student_sessions_pkey',
  ],
  'lti-keys-through-platform': [
    'foreign-key-without-distribution-column:lti_link_assignments.lti_link_assignments_platform_id_resource_link_id_fkey',
    'unique-without-distribution-column:lti_link_assignments.lti_link_assignments_pkey',
    'unique-without-distribution-column:lti_resource_links.lti_resource_links_pkey',
  ],
  'add-institution-column': ['missing-distribution-column:lti_score_attempts', 'missing-distribution-column:result_rollup_attempts'],
  'operator-audit-entries': ['nullable-distribution-column:audit_log'],
  'webhook-claim-per-institution': ['function-over-distributed-tables:webhook_claim'],
  'cascade-triggers-per-institution': [
    'function-over-distributed-tables:assay_delete_delivery_attempts',
    'function-over-distributed-tables:assay_delete_event_deliveries',
  ],
};

/** Blocker id → the change it needs. */
export const KNOWN_BLOCKERS: Readonly<Record<string, Change>> = Object.fromEntries(
  Object.entries(BLOCKERS_BY_CHANGE).flatMap(([change, ids]) => ids.map((id) => [id, change as Change])),
);
