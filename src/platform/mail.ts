import nodemailer from 'nodemailer';
import type { MailConfig } from './config.js';

/**
 * Outgoing mail. With ASSAY_SMTP_URL, messages go over SMTP (nodemailer;
 * `smtps://` is TLS from the first byte, `smtp://` upgrades with STARTTLS
 * when the server offers it). Without it, each message is written to the
 * log in full, links included: that is the development path, and the only
 * place a sign-in link is ever logged. Production must set ASSAY_SMTP_URL.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; throws otherwise (the caller's job retries). */
  send(message: MailMessage): Promise<void>;
  /** True when messages really leave (SMTP), false when they go to the log. */
  readonly delivers: boolean;
  close(): void;
}

export interface MailLog {
  info(obj: object, msg?: string): void;
}

/** A log for processes that have no logger of their own: one JSON line on stdout. */
export const stdoutMailLog: MailLog = {
  info(obj, msg) {
    process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg, ...obj })}\n`);
  },
};

export function createMailer(config: MailConfig, log: MailLog = stdoutMailLog): Mailer {
  if (!config.smtpUrl) {
    return {
      delivers: false,
      async send(message) {
        log.info({ mail: { from: config.from, ...message } }, 'mail not sent (ASSAY_SMTP_URL is not set); the message follows');
      },
      close() {},
    };
  }
  // Bounded waits: a hung SMTP server fails the attempt (and the job retries) instead of holding a worker slot.
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    delivers: true,
    async send(message) {
      await transport.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
