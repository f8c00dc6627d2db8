import fs from 'node:fs';

/**
 * CPU time, in milliseconds, that a thread or a process has run, read from
 * Linux's /proc (utime + stime of `stat`, in the kernel's fixed 100 ticks a
 * second). The pool's time limit counts it instead of the wall clock
 * (worker-pool.ts): a pool thread runs below the event loop, so on a busy
 * machine it waits for a core, and that wait is the machine's, not the
 * task's. Null where there is no /proc (not Linux) or the thread has ended:
 * the caller then counts the wall clock.
 */
export function cpuMsOf(path: string): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(path, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses of its own: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * (1000 / USER_HZ) : null;
}

/** The unit of /proc's CPU times: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/** A thread of this process, by its Linux thread id (as /proc/thread-self names it). */
export const threadStatPath = (tid: number) => `/proc/self/task/${tid}/stat`;

/** A whole process (every thread of it), by its pid. */
export const processStatPath = (pid: number) => `/proc/${pid}/stat`;

/** This thread's Linux thread id, or null where there is none to read (not Linux). */
export function ownThreadId(): number | null {
  try {
    return Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return null;
  }
}
