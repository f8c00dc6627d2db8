/**
 * Log lines for a person at a terminal (npm start in a TTY): the JSON lines
 * pino writes, read back and shortened. A request is one line, written when
 * it completes, with its method, URL, status, time and, for a refusal, the
 * error code: `12:03:07  GET /api/partner/v1/tests  200  3 ms`. Other lines
 * keep their level (when not info), message and fields. Lines are held back
 * until `release()`, so the start banner is the first thing on the screen.
 */
export interface PrettyStream {
  write(line: string): void;
  /** Writes what was held back and passes everything through from now on. */
  release(): void;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the request line already shows. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'requestId', 'req', 'res', 'responseTime', 'v']);
/** Requests in flight whose first line was seen, by request id; bounded. */
const MAX_OPEN = 10_000;

export function createPrettyStream(out: { write(text: string): void }): PrettyStream {
  const open = new Map<string, { method: string; url: string; code?: string }>();
  let held: string[] | null = [];

  const emit = (text: string) => (held ? held.push(text) : out.write(text));

  function format(entry: Record<string, any>): string | null {
    const id = entry.requestId as string | undefined;
    if (id && entry.msg === 'incoming request' && entry.req) {
      if (open.size >= MAX_OPEN) open.delete(open.keys().next().value!);
      open.set(id, { method: entry.req.method, url: entry.req.url });
      return null;
    }
    if (id && entry.msg === 'request refused' && (entry.level ?? 30) <= 30) {
      const r = open.get(id);
      if (r) r.code = entry.code;
      return null;
    }
    if (id && entry.msg === 'request completed' && entry.res) {
      const r = open.get(id);
      open.delete(id);
      const ms = typeof entry.responseTime === 'number' ? `${entry.responseTime < 10 ? entry.responseTime.toFixed(1) : Math.round(entry.responseTime)} ms` : '';
      return [time(entry.time), r ? `${r.method} ${r.url}` : '(request)', String(entry.res.statusCode), ms, r?.code ?? ''].filter(Boolean).join('  ');
    }
    if (/^Server listening at /.test(entry.msg ?? '')) return null; // the banner says where
    const level = (entry.level ?? 30) === 30 ? '' : (LEVELS[entry.level] ?? String(entry.level));
    const fields = Object.entries(entry)
      .filter(([k]) => !HIDDEN.has(k))
      .map(([k, v]) => `${k}=${k === 'err' && v && typeof v === 'object' ? (v.stack ?? v.message) : typeof v === 'string' ? v : JSON.stringify(v)}`);
    return [time(entry.time), level, entry.msg ?? '', ...fields].filter(Boolean).join('  ');
  }

  return {
    write(line: string) {
      let entry: Record<string, any>;
      try {
        entry = JSON.parse(line);
      } catch {
        return emit(line);
      }
      const text = format(entry);
      if (text !== null) emit(`${text}\n`);
    },
    release() {
      const lines = held ?? [];
      held = null;
      for (const l of lines) out.write(l);
    },
  };
}

function time(t: unknown): string {
  const d = typeof t === 'number' ? new Date(t) : new Date();
  return d.toTimeString().slice(0, 8);
}
