/**
 * The join every read of an assignment with its user's `externalUserId`
 * writes: the assignment (alias `a` unless told) to its user as `u`. Text
 * only, so each statement reads and plans exactly as written out. In
 * lifecycle, the lowest module that reads an assignment with its user (the
 * transition writer's lock); assignments, marking and proctoring import it.
 */
export function joinUserOf(assignmentAlias: string): string {
  return `JOIN users u ON u.id = ${assignmentAlias}.user_id`;
}

/** `JOIN users u ON u.id = a.user_id`. */
export const JOIN_USER = joinUserOf('a');
