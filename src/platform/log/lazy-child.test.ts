import { describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from './lazy-child.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const parent = pino({ level }, { write: (l: string) => lines.push(JSON.parse(l)) });
  const child = vi.spyOn(parent, 'child');
  return { parent: parent as unknown as FastifyBaseLogger, lines, child };
}

describe('the per-request logger made on its first logged line', () => {
  it('makes no child for lines below the level, and writes the first line at the level with the bindings', () => {
    const { parent, lines, child } = capture('warn');
    const log = lazyChildLogger(parent, { requestId: 'req_1' }, {});
    log.info('incoming request');
    log.debug({ x: 1 }, 'detail');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    log.warn({ code: 'rate_limited' }, 'refused');
    log.error('failed');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.requestId, l.msg, l.level])).toEqual([
      ['req_1', 'refused', 40],
      ['req_1', 'failed', 50],
    ]);
    expect(lines[0]!.code).toBe('rate_limited');
  });

  it("follows a route's own level over the parent's", () => {
    const { parent, lines } = capture('warn');
    const log = lazyChildLogger(parent, { requestId: 'req_2' }, { level: 'info' });
    expect(log.level).toBe('info');
    log.info('kept');
    const quiet = lazyChildLogger(parent, { requestId: 'req_3' }, { level: 'error' });
    quiet.warn('dropped');
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
  });

  it('passes child loggers and level changes through to the made child', () => {
    const { parent, lines } = capture('warn');
    const log = lazyChildLogger(parent, { requestId: 'req_4' }, {});
    log.level = 'debug';
    log.debug('now written');
    log.child({ part: 'upload' }).warn('from a child');
    expect(lines.map((l) => [l.requestId, l.part, l.msg])).toEqual([
      ['req_4', undefined, 'now written'],
      ['req_4', 'upload', 'from a child'],
    ]);
  });

  it('keeps bindings set before and after the child is made', () => {
    const { parent, lines } = capture('warn');
    const log = lazyChildLogger(parent, { requestId: 'req_6' }, {}) as FastifyBaseLogger & { setBindings(b: object): void; bindings(): object };
    log.setBindings({ keyId: 'key_1' });
    expect(log.bindings()).toEqual({ requestId: 'req_6', keyId: 'key_1' });
    log.warn('first');
    log.setBindings({ institutionId: 'inst_1' });
    log.warn('second');
    expect(lines.map((l) => [l.requestId, l.keyId, l.institutionId ?? null, l.msg])).toEqual([
      ['req_6', 'key_1', null, 'first'],
      ['req_6', 'key_1', 'inst_1', 'second'],
    ]);
  });

  it('writes nothing at the silent level', () => {
    const { parent, lines, child } = capture('silent');
    lazyChildLogger(parent, { requestId: 'req_5' }, {}).fatal('gone');
    expect(lines).toEqual([]);
    expect(child).not.toHaveBeenCalled();
  });
});
