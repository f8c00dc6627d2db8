import type { ErrorDetail } from '../../../platform/errors.js';

/** The ids of a list (stems, choices, items, blanks, parts), each duplicate reported under its entry's `id`. */
export function uniqueIds(list: ReadonlyArray<{ id: string }>, at: string, what: string, details: ErrorDetail[]): Set<string> {
  const ids = new Set<string>();
  list.forEach((o, j) => {
    if (ids.has(o.id)) details.push({ field: `${at}.${j}.id`, message: `duplicates ${what} id "${o.id}"` });
    ids.add(o.id);
  });
  return ids;
}
