import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, withTransaction, type Pool } from '../../src/platform/db.js';
import { appendEvent } from '../../src/modules/lifecycle/append-event.js';
import { createTestDatabase } from '../helpers/database.js';

/**
 * Appending an event depends on the webhook fan-out being connected; a
 * process that forgot to connect it fails loudly instead of silently writing
 * events that nobody is ever sent. (This file never builds a server or a
 * worker, which connect it: the module state is this file's own.)
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  await pool.query(`INSERT INTO institutions (id, name) VALUES ('ins_outbox', 'Outbox College')`);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const event = { institutionId: 'ins_outbox', assignmentId: null, type: 'webhook.test', data: { message: 'x' }, createdAt: new Date() };

describe('the event outbox', () => {
  it('refuses to append an event while no fan-out is connected, and writes nothing', async () => {
    await expect(withTransaction(pool, (tx) => appendEvent(tx, event))).rejects.toThrow(/fan-out/);
    expect((await pool.query('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(0);
  });

  it('appends once the webhooks module has connected its fan-out', async () => {
    const { installWebhookFanOut } = await import('../../src/modules/webhooks/fan-out.js');
    installWebhookFanOut();
    const stored = await withTransaction(pool, (tx) => appendEvent(tx, event));
    expect((await pool.query('SELECT id FROM events')).rows).toEqual([{ id: stored.id }]);
  });
});
