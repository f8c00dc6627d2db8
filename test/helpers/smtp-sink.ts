import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on a loopback port that keeps every message it
 * accepts: what Assay's mailer (nodemailer) sends arrives here over SMTP,
 * exactly as it would at a mail relay. `failNext` refuses the next
 * messages with a 451, like a relay in trouble.
 */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

/** Undoes quoted-printable (nodemailer wraps long lines, links included, that way). */
function decodeQuotedPrintable(s: string): string {
  const bytes = Buffer.from(s.replace(/=\r?\n/g, ''), 'binary');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x3d && /^[0-9A-F]{2}$/i.test(bytes.subarray(i + 1, i + 3).toString('latin1'))) {
      out.push(parseInt(bytes.subarray(i + 1, i + 3).toString('latin1'), 16));
      i += 2;
    } else out.push(c);
  }
  return Buffer.from(out).toString('utf8');
}

/** RFC 2047 encoded words: the whitespace between adjacent ones is not part of the text, and a character may be split across two, so a run of them is decoded as one. */
function decodeHeader(value: string): string {
  const word = /=\?utf-8\?([QB])\?([^?]*)\?=/gi;
  return value.replace(/=\?utf-8\?[QB]\?[^?]*\?=(?:\s+=\?utf-8\?[QB]\?[^?]*\?=)*/gi, (run) => {
    const bytes = [...run.matchAll(word)].map(([, enc, text]) =>
      enc!.toUpperCase() === 'B' ? Buffer.from(text!, 'base64') : Buffer.from(decodeQuotedPrintable(text!.replace(/_/g, ' ')), 'utf8'),
    );
    return Buffer.concat(bytes).toString('utf8');
  });
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { ...envelope, subject: decodeHeader(header('Subject')), text: text.replace(/\r\n/g, '\n'), raw };
}

export async function startSmtpSink() {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = new Error('Mailbox temporarily unavailable') as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        messages.push(parseMail(Buffer.concat(chunks).toString('binary'), envelope));
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The messages sent to `address`, oldest first. */
    to: (address: string) => messages.filter((m) => m.to.includes(address)),
    failNext(n: number) {
      failures = n;
    },
    /** Waits until `count` messages have arrived in total. */
    async waitFor(count: number, timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mail(s), got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

/** The sign-in links in a mail's text. */
export function linksIn(mail: ReceivedMail): string[] {
  return [...mail.text.matchAll(/https?:\/\/\S+\/portal\/sign-in\/link\/[0-9A-Za-z]+/g)].map((m) => m[0]);
}
