import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AssayError,
  AssayNotFoundError,
  AssayWebhookVerificationError,
  verifyWebhook,
  type Assay,
  type SimulateAction,
  type Test,
} from '../../packages/partner-sdk/src/index.js';
import { layout, messagePage, returnPage, studentRows, studentsPage, testsPage, scoreText, TEST_LANGUAGES } from './pages.js';
import { openStore, type Enrolment, type Store } from './store.js';

/**
 * A tiny LMS that integrates with Assay through the partner SDK only:
 *   GET  /                 the tests published to us, and a form to assign one (in a language of the form's choosing)
 *   POST /assign           creates the assignment, sends the browser to its startUrl
 *   GET  /return           the assignment's callbackUrl: reads the assignment from Assay
 *   POST /webhooks/assay   verifies each delivery, applies it once (by webhook-id)
 *   GET  /students         every enrolment's status and score, live over /students/stream
 *   POST /simulate         test mode: plays an assignment's next step (assignments.simulate)
 * On start it registers its webhook endpoint with Assay unless one for its URL exists.
 */
export interface PartnerAppOptions {
  assay: Assay;
  /** Where browsers and Assay reach this app, e.g. http://localhost:4000. */
  publicUrl: string;
  /** The JSON file of the LMS's records; null keeps them in memory. */
  dataFile: string | null;
  testMode: boolean;
  log?: (line: string) => void;
}

export interface PartnerApp {
  server: http.Server;
  store: Store;
  /** Registers (or re-keys) the webhook endpoint, then listens. Returns the address listened on. */
  start(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const MAX_BODY = 256 * 1024;
const SIMULATE_ACTIONS = new Set<string>(['start', 'submit', 'violation', 'finish_marking', 'expire'] satisfies SimulateAction[]);

export function createPartnerApp(opts: PartnerAppOptions): PartnerApp {
  const { assay } = opts;
  const publicUrl = opts.publicUrl.replace(/\/$/, '');
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const store = openStore(opts.dataFile);
  const listeners = new Set<http.ServerResponse>();
  const notices = new Map<string, string>();
  const page = (title: string, current: 'tests' | 'students' | null, body: string, script?: string) =>
    layout({ title, current, testMode: opts.testMode, body, ...(script ? { script } : {}) });

  const enrolments = (): Enrolment[] => Object.values(store.state.enrolments).sort((a, b) => b.createdAt.localeCompare(a.createdAt));

  /** Tells every open Students page what changed (Server-Sent Events). */
  function broadcast(announce: string) {
    const data = JSON.stringify({ rows: studentRows(enrolments(), opts.testMode), announce });
    for (const res of listeners) res.write(`data: ${data}\n\n`);
  }

  async function allTests(): Promise<Test[]> {
    const tests: Test[] = [];
    for await (const t of assay.tests.listAll()) tests.push(t);
    return tests;
  }

  async function showTests(res: http.ServerResponse, form: { error?: string; values?: Record<string, string> } = {}, status = 200) {
    const tests = await allTests();
    send(res, status, page('Tests', 'tests', testsPage(tests, { nonce: randomUUID(), ...form })));
  }

  async function assign(req: http.IncomingMessage, res: http.ServerResponse) {
    const form = Object.fromEntries(new URLSearchParams((await readBody(req)).toString('utf8'))) as Record<string, string>;
    const values = {
      testId: form.testId ?? '',
      externalUserId: (form.externalUserId ?? '').trim(),
      name: (form.name ?? '').trim(),
      email: (form.email ?? '').trim(),
      // Only a language the form offers; empty leaves the choice to the student's browser.
      locale: TEST_LANGUAGES.some(([tag]) => tag === form.locale) ? form.locale! : '',
    };
    if (!values.testId || !values.externalUserId || !values.email) return showTests(res, { error: 'Choose a test and give the student ID and email.', values }, 400);
    const tests = await allTests();
    const test = tests.find((t) => t.testId === values.testId);
    if (!test) return showTests(res, { error: 'That test is no longer published to us.', values }, 400);
    try {
      // The form's nonce is the idempotency key: a double-clicked or resubmitted form yields the one assignment.
      const created = await assay.assignments.create(
        {
          externalUserId: values.externalUserId,
          testId: test.testId,
          user: { email: values.email, ...(values.name ? { name: values.name } : {}) },
          callbackUrl: `${publicUrl}/return`,
          metadata: { source: 'riverside-lms' },
          ...(values.locale ? { locale: values.locale } : {}),
        },
        { idempotencyKey: `assign-form-${form.nonce || randomUUID()}` },
      );
      const now = new Date().toISOString();
      store.state.enrolments[created.assignmentId] ??= {
        assignmentId: created.assignmentId,
        externalUserId: values.externalUserId,
        name: values.name,
        email: values.email,
        testId: test.testId,
        testTitle: test.title,
        status: created.status,
        score: null,
        sequence: 0,
        livemode: null,
        createdAt: now,
        updatedAt: now,
      };
      store.save();
      broadcast(`${values.name || values.externalUserId}: assigned ${test.title}`);
      res.writeHead(303, { location: created.startUrl }).end();
    } catch (err) {
      if (!(err instanceof AssayError) || err.status === null || err.status >= 500) throw err;
      // The form came back (browser Back) with its used nonce and other values: a fresh form, nothing assigned.
      if (err.code === 'idempotency_key_reused') {
        return showTests(res, { error: 'This form had already been sent with other details. Check them and send it again.', values }, 409);
      }
      const hint =
        err.code === 'callback_url_not_allowed'
          ? ` Ask the Assay operator to allow the host of ${publicUrl} as a callback domain of your institution.`
          : '';
      return showTests(res, { error: `Assay refused the assignment: ${err.message}${hint}`, values }, 422);
    }
  }

  /** The return page trusts nothing in its query but which assignment to look up, and only one this LMS created. */
  async function returned(url: URL, res: http.ServerResponse) {
    const id = url.searchParams.get('partnerAssignmentId') ?? '';
    const enrolment = store.state.enrolments[id];
    if (!enrolment) return send(res, 404, page('Not found', null, messagePage('Unknown assignment', 'This link does not belong to an assignment made here.')));
    try {
      const a = await assay.assignments.get(id);
      if (a.status !== enrolment.status && enrolment.sequence === 0) {
        enrolment.status = a.status;
        enrolment.updatedAt = new Date().toISOString();
        store.save();
      }
      send(res, 200, page('Welcome back', null, returnPage(a, enrolment)));
    } catch (err) {
      if (!(err instanceof AssayNotFoundError)) throw err;
      send(res, 404, page('Not found', null, messagePage('Unknown assignment', 'Assay does not know this assignment.')));
    }
  }

  async function webhook(req: http.IncomingMessage, res: http.ServerResponse) {
    const body = await readBody(req);
    const secret = store.state.webhook?.secret;
    if (!secret) return send(res, 503, 'webhook endpoint not registered yet', 'text/plain');
    let event;
    try {
      event = verifyWebhook(body, req.headers, secret);
    } catch (err) {
      if (!(err instanceof AssayWebhookVerificationError)) throw err;
      log(`webhook refused: ${err.message}`);
      return send(res, 400, 'invalid signature', 'text/plain');
    }
    const webhookId = String(req.headers['webhook-id']);
    const fresh = store.recordEvent(webhookId, event);
    log(`webhook ${event.type} ${webhookId}${fresh ? '' : ' (already received)'}`);
    if (fresh) {
      const e = store.state.enrolments[(event.data as { partnerAssignmentId?: string }).partnerAssignmentId ?? ''];
      if (e) broadcast(`${e.name || e.externalUserId}: ${e.status}${e.score ? `, ${scoreText(e)}` : ''}`);
    }
    res.writeHead(204).end();
  }

  /**
   * Test mode: plays a step through the SDK. The board changes when the
   * step's webhook arrives, as it would for a real student; a refused step
   * (409 invalid_state) comes back as a notice.
   */
  async function simulate(req: http.IncomingMessage, res: http.ServerResponse) {
    const form = new URLSearchParams((await readBody(req)).toString('utf8'));
    const id = form.get('assignmentId') ?? '';
    const action = form.get('action') ?? '';
    if (!store.state.enrolments[id] || !SIMULATE_ACTIONS.has(action)) return send(res, 400, page('Bad request', null, messagePage('Bad request', 'Unknown assignment or step.')));
    let notice = '';
    try {
      await assay.assignments.simulate(id, action as SimulateAction);
    } catch (err) {
      if (!(err instanceof AssayError) || err.status === null || err.status >= 500) throw err;
      notice = `Assay refused “${action}”: ${err.message}`;
    }
    // The notice stays here, the URL carries only its id: the page never shows text taken from a link.
    const noticeId = notice ? randomUUID() : '';
    if (notice) notices.set(noticeId, notice);
    res.writeHead(303, { location: notice ? `/students?notice=${noticeId}` : '/students' }).end();
  }

  function stream(req: http.IncomingMessage, res: http.ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`retry: 2000\ndata: ${JSON.stringify({ rows: studentRows(enrolments(), opts.testMode), announce: '' })}\n\n`);
    listeners.add(res);
    req.on('close', () => listeners.delete(res));
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', publicUrl);
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /') return showTests(res);
    if (route === 'POST /assign') return assign(req, res);
    if (route === 'GET /return') return returned(url, res);
    if (route === 'POST /webhooks/assay') return webhook(req, res);
    if (route === 'POST /simulate' && opts.testMode) return simulate(req, res);
    if (route === 'GET /students') {
      const { body, script } = studentsPage(enrolments(), { testMode: opts.testMode, notice: notices.get(url.searchParams.get('notice') ?? '') ?? null });
      return send(res, 200, page('Students', 'students', body, script));
    }
    if (route === 'GET /students/stream') return stream(req, res);
    if (route === 'GET /healthz') return send(res, 200, 'ok', 'text/plain');
    send(res, 404, page('Not found', null, messagePage('Page not found', 'There is nothing at this address.')));
  }

  /**
   * One endpoint per URL: reuse ours when the data file still has its secret;
   * an endpoint for our URL whose secret we lost gets a new secret (rotation
   * keeps the old one valid for a day, so in-flight deliveries still verify).
   */
  async function ensureWebhookEndpoint(): Promise<void> {
    const url = `${publicUrl}/webhooks/assay`;
    let existing: { endpointId: string } | undefined;
    for await (const e of assay.webhookEndpoints.listAll()) if (e.url === url) existing = e;
    const known = store.state.webhook;
    if (existing && known?.endpointId === existing.endpointId && known.url === url) {
      log(`webhook endpoint ${existing.endpointId} already registered for ${url}`);
      return;
    }
    if (existing) {
      const { secret } = await assay.webhookEndpoints.rotateSecret(existing.endpointId);
      store.state.webhook = { endpointId: existing.endpointId, url, secret };
      log(`webhook endpoint ${existing.endpointId} found for ${url}; its secret was rotated, the new one is stored`);
    } else {
      const created = await assay.webhookEndpoints.create({ url, description: 'Riverside LMS (example partner app)' });
      store.state.webhook = { endpointId: created.endpointId, url, secret: created.secret };
      log(`webhook endpoint ${created.endpointId} registered for ${url}`);
    }
    store.save();
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`error on ${req.method} ${req.url}: ${err instanceof AssayError ? `${err.code} ${err.message} (request ${err.requestId})` : String(err)}`);
      if (!res.headersSent) send(res, 502, page('Something went wrong', null, messagePage('Something went wrong', 'Assay could not be reached or refused the request. Try again in a moment.')));
      else res.end();
    });
  });

  return {
    server,
    store,
    async start(port, host = '127.0.0.1') {
      await ensureWebhookEndpoint();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, resolve);
      });
      const address = server.address() as AddressInfo;
      return `http://${address.address}:${address.port}`;
    },
    async close() {
      for (const res of listeners) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: http.ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8') {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
