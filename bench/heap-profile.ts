import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A node of V8's sampling heap profile (HeapProfiler.stopSampling), as the benches read it. */
export interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** The repository's own files as tsx runs them (file:///…/assay/src/x.ts): shown from the repository's root. */
const REPO = `${pathToFileURL(path.resolve(import.meta.dirname, '..')).href}/`;

/** A frame as `name file:line`, its path short: a package's from its name, a compiled bench server's and the repository's from their roots. */
export function frameName(f: ProfileNode['callFrame']): string {
  const url = f.url.replace(/.*node_modules\//, '').replace(/.*\/bench\/\.build\//, '').replace(REPO, '');
  return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
}
