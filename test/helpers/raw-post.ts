import http from 'node:http';

/**
 * A POST over a real socket, for the routes that take a raw body (uploads,
 * multipart forms): inject() hands Fastify the whole body at once, so it
 * cannot show whether a route answers before the body has arrived.
 */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Body bytes written by the client before the answer came. */
  sentBeforeAnswer: number;
}

export interface RawPost {
  headers: Record<string, string>;
  /** The body: sent in 64 KB chunks, as fast as the socket takes them. */
  body: Buffer;
  /**
   * Send only this many bytes, then wait for the answer (Content-Length still
   * declares the whole body): an answer then proves the server did not wait
   * for the body. The request is cut if nothing comes within `waitMs`.
   */
  stopAfter?: number;
  waitMs?: number;
  /** Pause after each 64 KB chunk, ms: a slow connection. */
  chunkPauseMs?: number;
  chunkBytes?: number;
}

export function rawPost(baseUrl: string, path: string, opts: RawPost): Promise<RawAnswer> {
  const url = new URL(path, baseUrl);
  const total = opts.body.length;
  const stopAt = Math.min(opts.stopAfter ?? total, total);
  const chunk = opts.chunkBytes ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: 'POST',
      agent: false,
      headers: { 'content-length': String(total), ...opts.headers },
    });
    const timer = opts.stopAfter !== undefined ? setTimeout(() => req.destroy(new Error(`no answer within ${opts.waitMs ?? 5000} ms with ${sent} of ${total} bytes sent`)), opts.waitMs ?? 5000) : null;
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', () => undefined);
      res.on('end', () => {
        if (timer) clearTimeout(timer);
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8'), sentBeforeAnswer });
        req.destroy();
      });
    });
    // Once answered, the server may close while the rest is still being sent: not a failure of the test.
    req.on('error', (err) => {
      if (timer) clearTimeout(timer);
      if (!answered) reject(err);
    });
    const pump = () => {
      while (sent < stopAt && !answered && !req.destroyed) {
        const end = Math.min(sent + chunk, stopAt);
        const ok = req.write(opts.body.subarray(sent, end));
        sent = end;
        if (opts.chunkPauseMs) return void setTimeout(pump, opts.chunkPauseMs);
        if (!ok) return void req.once('drain', pump);
      }
      if (sent >= total && !answered) req.end();
    };
    pump();
  });
}

/** A multipart/form-data body as a browser builds it: fields in order, then the file. */
export function multipartBody(fields: Record<string, string>, file: { name: string; bytes: Uint8Array } | null, boundary = '----AssayTestBoundary7MA4YWxkTrZu0gW'): { contentType: string; body: Buffer } {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}
