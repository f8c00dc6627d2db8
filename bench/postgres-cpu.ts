import fs from 'node:fs';
import path from 'node:path';

/**
 * CPU time used so far by one PostgreSQL cluster (the postmaster and its
 * backends), read from /proc: Linux only, and only for a cluster whose data
 * directory we know (the embedded one), ended backends included. Returns µs, or null when unavailable.
 * Clock ticks are taken as 100 per second (USER_HZ on Linux).
 */
export function postgresCpuUs(clusterDir: string): number | null {
  let postmaster: number;
  try {
    postmaster = Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command name: state ppid … utime (14th field) stime (15th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    if (pid === postmaster || ppid === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    // The postmaster's reaped children too (cutime, cstime): a backend that ended during the run (a pool
    // connection closed when idle) would otherwise take its CPU time out of the sum.
    if (pid === postmaster) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks * 10_000;
}
