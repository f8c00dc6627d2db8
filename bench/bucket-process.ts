import { startS3Server } from '../test/helpers/s3-server.js';

/**
 * An S3-compatible bucket (s3rver, test/helpers/s3-server.ts) in a process of
 * its own, for a bench whose uploads go straight to the bucket: its work
 * (receiving and storing the files) then stays off the load generator's and
 * the service's event loops, as a real bucket's would. Started with fork():
 * sends `{ config }` when listening; on `'bytes'` answers `{ bytes }` (the
 * bodies of the PUTs it received); exits on `'stop'` or when its parent goes.
 */
if (!process.send) throw new Error('bench/bucket-process.ts is started by a benchmark');
const s3 = await startS3Server();
process.send({ config: s3.config });
const stop = async () => {
  await s3.close().catch(() => undefined);
  process.exit(0);
};
process.on('message', (m) => {
  if (m === 'bytes') process.send!({ bytes: s3.requests.filter((q) => q.method === 'PUT').reduce((n, q) => n + q.bytes, 0) });
  if (m === 'stop') void stop();
});
process.on('disconnect', () => void stop());
