// Direct uploads, when the service stores files in S3: a queued piece goes presign → PUT → record. The
// server signs a PUT of exactly this blob's length and type; the bytes go straight to the bucket (the API
// never carries them); the record call asks the server to check the stored object and write its row.
// Each step's failure is reported as one outcome the queue already knows (done, retry, halt, drop), so the
// queue's retry and backoff cover every step. Progress is kept per piece: after a PUT that succeeded, a
// failed record is retried from the record step; a presigned URL about to expire is signed again.

/** Outcome of a response from the API, as the queue acts on it. */
export function outcomeOf(res) {
  if (res.ok) return { kind: 'done' };
  if (res.status === 401 || res.status === 403) return { kind: 'halt' };
  if (res.status === 429 || res.status >= 500) return { kind: 'retry', retryAfter: res.headers.get('retry-after') };
  return { kind: 'drop' }; // 400/404/413/415: this piece can never be accepted
}

const SAFETY_MS = 15_000; // a URL this close to its expiry is signed again rather than used

/**
 * @param {{ base: string, csrfToken: string }} opts
 * @returns {(queueKey: string, item: object, intent: object) => Promise<{kind: string, retryAfter?: string|null}>}
 */
export function createDirectSender(opts) {
  const progress = new Map(); // queue key → { key, upload, expiresAt, put }
  const json = (path, body) =>
    fetch(`${opts.base}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': opts.csrfToken },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });

  return async function send(queueKey, item, intent) {
    let step = progress.get(queueKey);
    if (step && !step.put && Date.parse(step.expiresAt) - Date.now() < SAFETY_MS) step = undefined;
    if (!step) {
      let res;
      try {
        res = await json('uploads', intent);
      } catch {
        return { kind: 'retry', retryAfter: null };
      }
      if (!res.ok) return outcomeOf(res); // 409: refused (the test was submitted before this was captured)
      const signed = await res.json();
      if (!signed.direct) return { kind: 'done' }; // stored already (an earlier try's record answered late)
      step = { key: signed.key, upload: signed.upload, expiresAt: signed.expiresAt, put: false };
      progress.set(queueKey, step);
    }
    if (!step.put) {
      let res;
      try {
        // Content-Length comes from the blob: the browser sets it, and it is the length the URL signs.
        res = await fetch(step.upload.url, { method: step.upload.method, headers: step.upload.headers, body: item.blob, credentials: 'omit', cache: 'no-store' });
      } catch {
        return { kind: 'retry', retryAfter: null }; // offline, or the bucket unreachable: the same URL is tried again
      }
      if (!res.ok) {
        // Expired or refused by S3 (403), or S3 busy (5xx): sign again on the next try.
        progress.delete(queueKey);
        return { kind: 'retry', retryAfter: null };
      }
      step.put = true;
    }
    let res;
    try {
      res = await json('uploads/record', { key: step.key });
    } catch {
      return { kind: 'retry', retryAfter: null }; // from the record step again
    }
    if (res.status === 409 || res.status === 404) {
      // The object is not there (409), or its intent is gone (404, swept): start again from presign,
      // which answers "stored" when the sweep recorded it.
      progress.delete(queueKey);
      return { kind: 'retry', retryAfter: null };
    }
    const outcome = outcomeOf(res);
    if (outcome.kind === 'done' || outcome.kind === 'drop') progress.delete(queueKey);
    return outcome;
  };
}
