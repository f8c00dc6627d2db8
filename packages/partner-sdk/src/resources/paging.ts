/**
 * The two paginations of the Partner API as async iterators over items:
 * offset pages carry `total` (tests, webhook endpoints); the events list is
 * a cursor (`startingAfter` the last id while `hasMore`), so events written
 * while a loop runs neither shift nor repeat its items.
 */
export async function* offsetPages<T>(fetchPage: (offset: number) => Promise<{ data: T[]; total: number }>): AsyncIterableIterator<T> {
  for (let offset = 0; ; ) {
    const page = await fetchPage(offset);
    yield* page.data;
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.total) return;
  }
}

export async function* cursorPages<T extends { id: string }>(
  fetchPage: (startingAfter: string | undefined) => Promise<{ data: T[]; hasMore: boolean }>,
  startingAfter?: string,
): AsyncIterableIterator<T> {
  for (let cursor = startingAfter; ; ) {
    const page = await fetchPage(cursor);
    yield* page.data;
    const last = page.data.at(-1);
    if (!page.hasMore || last === undefined) return;
    cursor = last.id;
  }
}
