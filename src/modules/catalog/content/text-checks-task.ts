import { checkText, type TextCheck } from './text-checks.js';

/**
 * The content checks of texts the process has not kept (a test it has not
 * seen, a section pasted in), run on a worker-pool thread: Temml and
 * markdown-it over a 500-question test take 40–200 ms, which on the event
 * loop every tenant would wait for. The thread keeps nothing: the caller keeps
 * what comes back (text-checks-off-loop.ts).
 */
export function checkTexts(_input: Uint8Array, args: { sources: string[] }): TextCheck[] {
  return args.sources.map(checkText);
}
