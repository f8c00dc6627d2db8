import fs from 'node:fs';
import path from 'node:path';
import type { AssayEvent, AssignmentStatus, Score } from '../../packages/partner-sdk/src/index.js';

/**
 * The LMS's own records, kept in one JSON file (rewritten whole through a
 * temporary file and a rename, so a crash never leaves half a file):
 * - the webhook endpoint it registered and that endpoint's signing secret;
 * - one enrolment per assignment it created, with the status and score
 *   the webhooks (or a read on the return page) last told it;
 * - every webhook it accepted, by `webhook-id`, so a redelivery is noticed
 *   and not applied twice.
 * A real LMS keeps these in its own database; the shape is the point.
 */
export interface Enrolment {
  assignmentId: string;
  externalUserId: string;
  name: string;
  email: string;
  testId: string;
  testTitle: string;
  status: AssignmentStatus;
  score: Score | null;
  /** The `data.sequence` of the last event applied: an older event arriving late changes nothing. */
  sequence: number;
  livemode: boolean | null;
  createdAt: string;
  updatedAt: string;
}

export interface ReceivedEvent {
  type: string;
  assignmentId: string | null;
  livemode: boolean | null;
  receivedAt: string;
}

export interface State {
  webhook: { endpointId: string; url: string; secret: string } | null;
  enrolments: Record<string, Enrolment>;
  events: Record<string, ReceivedEvent>;
}

export interface Store {
  state: State;
  save(): void;
  /** Records a verified event once; returns false when this webhook-id was already recorded. */
  recordEvent(webhookId: string, event: AssayEvent): boolean;
}

export function openStore(file: string | null): Store {
  const empty: State = { webhook: null, enrolments: {}, events: {} };
  const state: State = file && fs.existsSync(file) ? { ...empty, ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<State>) } : empty;
  const save = () => {
    if (!file) return;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  };
  return {
    state,
    save,
    recordEvent(webhookId, event) {
      if (state.events[webhookId]) return false;
      const data = event.data as { partnerAssignmentId?: string; status?: AssignmentStatus; sequence?: number; score?: Score | null };
      // `livemode` is on every event of a service with test mode; read tolerantly, as new fields may appear.
      const mode = (event as { livemode?: unknown }).livemode;
      const livemode = typeof mode === 'boolean' ? mode : null;
      state.events[webhookId] = { type: event.type, assignmentId: data.partnerAssignmentId ?? null, livemode, receivedAt: new Date().toISOString() };
      const enrolment = data.partnerAssignmentId ? state.enrolments[data.partnerAssignmentId] : undefined;
      if (enrolment && typeof data.sequence === 'number' && data.sequence > enrolment.sequence) {
        enrolment.sequence = data.sequence;
        if (data.status) enrolment.status = data.status;
        if (data.score !== undefined) enrolment.score = data.score;
        enrolment.livemode = livemode;
        enrolment.updatedAt = new Date().toISOString();
      }
      save();
      return true;
    },
  };
}
