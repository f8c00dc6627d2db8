import type { S3TestServer } from '../test/helpers/s3-server.js';

/**
 * The simulated page's direct upload, with S3 storage (bench/exam-day.ts
 * --s3): presign through the API, PUT the bytes to the bucket (not through
 * HAProxy: the browser talks to S3 itself), record through the API. What
 * each leg carried is counted, so the run can say how many upload bytes the
 * API received (its upload routes' bodies) next to what S3 received.
 */
export interface UploadBytes {
  /** Bodies of the through-API upload routes (segments, snapshots): 0 when every upload is direct. */
  apiMedia: number;
  /** JSON of the presign and record calls. */
  apiJson: number;
  /** Bodies PUT to the bucket (S3's own count: the content-length of each PUT it received). */
  s3: () => number;
}

type Call = (op: string, ok: number[], req: { method: 'POST'; path: string; headers?: Record<string, string>; body?: string | Buffer }) => Promise<{ status: number; text: string } | null>;

export function uploadCounter(s3: S3TestServer | null): UploadBytes {
  return { apiMedia: 0, apiJson: 0, s3: () => (s3 ? s3.requests.filter((q) => q.method === 'PUT').reduce((n, q) => n + q.bytes, 0) : 0) };
}

/** One piece presigned, PUT and recorded; the record's status (201 stored, 200 had it), or null on a failure (counted under the op). */
export async function directUpload(
  call: Call,
  bytes: UploadBytes,
  op: string,
  base: string,
  headers: Record<string, string>,
  intent: Record<string, unknown>,
  body: Buffer,
): Promise<number | null> {
  const ask = JSON.stringify({ ...intent, bytes: body.length });
  bytes.apiJson += Buffer.byteLength(ask);
  const signed = await call(`${op} presign`, [200], { method: 'POST', path: `${base}/uploads`, headers: { ...headers, 'content-type': 'application/json' }, body: ask });
  if (!signed) return null;
  const s = JSON.parse(signed.text) as { direct: boolean; key: string; upload: { url: string; headers: Record<string, string> } };
  if (!s.direct) return 200;
  const put = await fetch(s.upload.url, { method: 'PUT', headers: s.upload.headers, body: new Uint8Array(body) }).catch(() => null);
  await put?.arrayBuffer();
  if (!put || put.status !== 200) return null;
  const rec = JSON.stringify({ key: s.key });
  bytes.apiJson += Buffer.byteLength(rec);
  const recorded = await call(`${op} record`, [200, 201], { method: 'POST', path: `${base}/uploads/record`, headers: { ...headers, 'content-type': 'application/json' }, body: rec });
  return recorded?.status ?? null;
}
