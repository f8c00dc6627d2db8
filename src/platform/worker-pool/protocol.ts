import type { ErrorCode, ErrorDetail } from '../errors.js';

/** How much lower than the process a pool thread runs (nice), where the system allows it (thread-main.ts). */
export const POOL_THREAD_NICE = 10;

/** What the pool sends a thread: one task. `input` is moved, not copied. */
export interface TaskRequest {
  id: number;
  module: string;
  name: string;
  input: Uint8Array;
  args: unknown;
}

/** What a thread answers. */
export type TaskReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; appError: { code: ErrorCode; message: string; details?: ErrorDetail[]; headers?: Record<string, string> } }
  | { id: number; ok: false; message: string; appError?: undefined };

/** A pool thread's first message, before any reply: its Linux thread id, whose CPU time the pool reads. */
export interface ThreadHello {
  hello: true;
  tid: number;
}
