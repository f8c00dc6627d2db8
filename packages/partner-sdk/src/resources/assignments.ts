import type { RequestOptions, Send } from '../transport.js';
import type {
  Assignment,
  AssignmentCreated,
  AssignmentProctoring,
  CreateAssignmentParams,
  SimulateAction,
  SimulateParams,
  StartLink,
  UpdateAssignmentParams,
} from '../types.js';

export interface CreateOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`. When absent the SDK makes one (a random UUID)
   * and sends the same one on each of its own retries, so a create retried
   * after a lost answer returns the assignment made by the first attempt.
   * Pass your own (e.g. your enrolment id) to make retries across process
   * restarts safe too.
   */
  idempotencyKey?: string;
}

const path = (id: string, rest = '') => `/api/partner/v1/assignments/${encodeURIComponent(id)}${rest}`;

/** Assignments of a test to one of your users (`/assignments`). */
export class Assignments {
  constructor(private readonly send: Send) {}

  /** Creates the assignment and returns its signed `startUrl`. */
  create(params: CreateAssignmentParams, options: CreateOptions = {}): Promise<AssignmentCreated> {
    const { idempotencyKey = globalThis.crypto.randomUUID(), ...rest } = options;
    return this.send({ method: 'POST', path: '/api/partner/v1/assignments', body: params, headers: { 'idempotency-key': idempotencyKey }, options: rest });
  }

  /** The live status, timestamps, result, and a fresh `startUrl` while the student can still use one. */
  get(assignmentId: string, options?: RequestOptions): Promise<Assignment> {
    return this.send({ method: 'GET', path: path(assignmentId), options });
  }

  /** Changes `dueAt` or accommodations (409 `invalid_state` once submitted, completed, cancelled or expired). */
  update(assignmentId: string, params: UpdateAssignmentParams, options?: RequestOptions): Promise<Assignment> {
    return this.send({ method: 'PATCH', path: path(assignmentId), body: params, options });
  }

  cancel(assignmentId: string, options?: RequestOptions): Promise<Assignment> {
    return this.send({ method: 'POST', path: path(assignmentId, '/cancel'), options });
  }

  /** Revokes the current start link and returns a new one. */
  reissueStartLink(assignmentId: string, options?: RequestOptions): Promise<StartLink> {
    return this.send({ method: 'POST', path: path(assignmentId, '/start-link'), options });
  }

  /** Proctoring flags and signed evidence URLs (valid 15 minutes). */
  proctoring(assignmentId: string, options?: RequestOptions): Promise<AssignmentProctoring> {
    return this.send({ method: 'GET', path: path(assignmentId, '/proctoring'), options });
  }

  /**
   * Test mode only: moves a test-mode assignment as a student, proctor or
   * reviewer would, emitting the same events (with `livemode: false`). With a
   * live key the service answers 404 (`AssayNotFoundError`).
   */
  simulate(assignmentId: string, action: SimulateAction | SimulateParams, options?: RequestOptions): Promise<Assignment> {
    const body = typeof action === 'string' ? { action } : action;
    return this.send({ method: 'POST', path: path(assignmentId, '/simulate'), body, options });
  }
}
