import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUEUES, SENT_STATES, UNSENT_STATES } from '@smsgw/contracts';
import { submitRetryDelays } from '@smsgw/dispatcher';
import { PgDb } from '@smsgw/kit';
import { createTestDatabase, deleteBusNamespace, startService, waitFor } from '@smsgw/kit/testing';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { basic, request } from '../../support/http';
import type { PrivatePostgres, PrivateRabbit, PrivateRedis } from './infra';
import { WebhookReceiver } from './webhook';
import { SERVICE_NAMES, freePort, type ServiceName } from '../../support/processes';

export interface Infra {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  rabbit: PrivateRabbit;
}

export interface RunContext {
  infra: Infra;
  sim: SmppSimulator;
  receiver: WebhookReceiver;
  services: Map<ServiceName, ServiceProcess>;
  /** SIGKILLs a service and starts it again on the same port after pauseMs. */
  restart(name: ServiceName, pauseMs: number): Promise<void>;
  /** SIGKILLs a service. */
  kill(name: ServiceName): Promise<void>;
  /** Starts a killed service again on its port; resolves once it is ready. */
  relaunch(name: ServiceName): Promise<void>;
  /** The SMSC gone: every session cut and its port closed, until smscUp(). */
  smscDown(): Promise<void>;
  smscUp(): Promise<void>;
  quick: boolean;
}

export interface Fault {
  name: string;
  /** Injects the fault and returns once it is over (the system may still be recovering). */
  inject(run: RunContext): Promise<void>;
}

/** What a run measured, by message id, from the simulator's record and the database. */
export interface RunResult {
  fault: string;
  batchSize: number;
  singles: number;
  accepted: number;
  /** Messages the SMSC took at least once. */
  sent: number;
  /** Submits beyond the first for the same message. */
  duplicated: number;
  /** Accepted messages that did not reach the SMSC and have no final outcome saying why. */
  lost: number;
  /** Failed as SUBMIT_OUTCOME_UNKNOWN: written, never answered (the unknown-outcome rule, not refunded). */
  unknownOutcome: number;
  /** Of those, the ones the SMSC never got (lost in a dropped session's buffers). */
  unknownNotAtSmsc: number;
  /** Failed or rejected without reaching the SMSC, refunded. */
  failedRefunded: number;
  /** Refunded although the SMSC took them. */
  refundedAndSent: number;
  /** Final, never at the SMSC and not refunded. */
  chargedNotSent: number;
  /** Missing callbacks by kind and the state of their row (or `no-row` and the message's state). */
  missingByKind: Record<string, number>;
  /** Still waiting (accepted, queued, submitting) at the end. */
  stranded: Record<string, number>;
  batchState: string;
  /** Batch recipients never expanded into messages. */
  notExpanded: number;
  callbacksDue: number;
  callbacksMadeOnce: number;
  callbacksDuplicated: number;
  callbacksMissing: number;
  callbacksGivenUp: number;
  /** Requests made again with the same X-Smsgw-Callback-Id (at least once, recognisable). */
  callbacksRepeatedSameId: number;
  /** balance − (start − charges + refunds): zero when money is exact. */
  moneyDifference: string;
  /** Charges and refunds in the ledger against those the messages' states call for. */
  ledgerMismatch: string;
  errorLogLines: Record<string, number>;
  settled: boolean;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ADMIN_TOKEN = 'faults-admin-token-0123456789';
const JWT_SECRET = 'faults-jwt-secret-0123456789-0123456789-0123456789';
const START_BALANCE = '1000000.000000';
/** A rate with fractions of a cent, so a rounding slip shows. */
const RATE = '0.013700';
/** The error of a message whose submit_sm was written and never answered (Promise 2). */
const UNKNOWN_OUTCOME = 'SUBMIT_OUTCOME_UNKNOWN';

/** Exact decimal arithmetic on numeric(20,6) strings, in millionths. */
function micros(value: string | null | undefined): bigint {
  if (!value) return 0n;
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = value.replace('-', '').split('.');
  const m = BigInt(whole) * 1_000_000n + BigInt((fraction + '000000').slice(0, 6));
  return negative ? -m : m;
}
function money(m: bigint): string {
  const negative = m < 0n;
  const abs = negative ? -m : m;
  return `${negative ? '-' : ''}${abs / 1_000_000n}.${String(abs % 1_000_000n).padStart(6, '0')}`;
}

interface MessageRow {
  id: string;
  batch_id: string | null;
  state: string;
  to_addr: string;
  cost: string;
  error: string | null;
}

/**
 * One row of the matrix: a fresh database and bus namespace on the private servers, every
 * service as a process, a batch with callbacks and a stream of single sends with delivery reports,
 * one fault a few seconds in, then the checks.
 */
export async function runFault(
  infra: Infra,
  fault: Fault,
  options: { batchSize: number; quick: boolean; settleMs: number },
): Promise<RunResult> {
  const started = Date.now();
  const database = await createTestDatabase(infra.postgres.url);
  const namespace = `faults-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    AMQP_URL: infra.rabbit.url,
    REDIS_URL: infra.redis.url,
    BUS_NAMESPACE: namespace,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    LOG_LEVEL: process.env['FAULTS_LOG_LEVEL'] ?? 'warn',
  };
  // A port of its own, so the SMSC comes back where the dispatcher looks for it after smscDown().
  const sim = new SmppSimulator({
    host: '127.0.0.1',
    port: await freePort(),
    deliveryReceipts: true,
    receiptDelayMs: 50,
  });
  const { port: smppPort } = await sim.start();
  const receiver = new WebhookReceiver();
  await receiver.start();
  const envOf: Record<ServiceName, Record<string, string>> = {
    auth: { ADMIN_TOKEN, JWT_SECRET },
    'api-gateway': {},
    'batch-scheduler': {},
    dispatcher: {
      SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${smppPort}?window=50`,
      SUBMIT_STALE_MS: '5000',
      SWEEP_INTERVAL_MS: '1000',
    },
    'callback-notifier': { CALLBACK_ALLOWED_HOSTS: '127.0.0.1' },
  };
  const services = new Map<ServiceName, ServiceProcess>();
  const everyProcess: ServiceProcess[] = [];
  const launch = async (name: ServiceName, port?: number) => {
    const extra: Record<string, string> = { ...envOf[name] };
    if (name === 'api-gateway') extra['AUTH_URL'] = services.get('auth')!.url;
    if (port !== undefined) extra['PORT'] = String(port);
    // A service started again may start while a dependency is still down: it waits for it.
    const readyWithin = port === undefined ? 60_000 : 180_000;
    const service = await startService(name, { ...env, ...extra }, readyWithin);
    services.set(name, service);
    everyProcess.push(service);
    return service;
  };
  const context: RunContext = {
    infra,
    sim,
    receiver,
    services,
    quick: options.quick,
    async restart(name, pauseMs) {
      await this.kill(name);
      await sleep(pauseMs);
      await this.relaunch(name);
    },
    async kill(name) {
      await services.get(name)!.kill();
    },
    async relaunch(name) {
      await launch(name, services.get(name)!.port);
    },
    smscDown: () => sim.stop(),
    async smscUp() {
      await sim.start();
    },
  };
  const db = new PgDb({ connectionString: database.url, max: 2 });
  try {
    for (const name of SERVICE_NAMES) await launch(name);
    const gateway = () => services.get('api-gateway')!.url;
    const created = await request(services.get('auth')!.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'faults', password: 'faults-password', balance: START_BALANCE, rate: RATE },
    });
    if (created.status !== 201) throw new Error(`account: HTTP ${created.status}`);
    const auth = basic('faults', 'faults-password');

    const recipients = Array.from({ length: options.batchSize }, (_, i) =>
      String(41_700_000_000 + i),
    );
    const batch = await request(gateway(), 'POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: recipients, content: 'fault matrix' }],
        batch_config: {
          callback_url: `${receiver.base}/batch-ok`,
          errback_url: `${receiver.base}/batch-error`,
        },
      },
    });
    if (batch.status !== 200) throw new Error(`sendbatch: HTTP ${batch.status} ${batch.text}`);
    const batchId: string = batch.body.data.batchId;

    // Single sends keep arriving through the fault; only those answered Success were accepted.
    // One whose answer was lost may or may not have been accepted: the database tells, by number.
    let streaming = true;
    const singleTos: string[] = [];
    const stream = (async () => {
      const limit = options.quick ? 150 : 400;
      for (let i = 0; streaming && i < limit; i++) {
        const to = String(41_790_000_000 + i);
        singleTos.push(to);
        await request(gateway(), 'POST', '/secure/send', {
          auth,
          json: {
            to,
            content: `single ${i}`,
            dlr: 'yes',
            'dlr-url': `${receiver.base}/dlr`,
            'dlr-level': 3,
          },
        }).catch(() => undefined);
        await sleep(100);
      }
    })();

    await sim.waitFor(Math.floor(options.batchSize / 10), 120_000);
    await fault.inject(context);
    await sleep(2000);
    streaming = false;
    await stream;

    // Settled: the batch finished, nothing waits to be sent, no receipt or callback outstanding, and
    // no outcome event waits in the outbox (one whose publish died with its process is taken up by
    // the notifier's sweep a while later).
    // Bounded: a run that does not settle is reported as it stands.
    let settled = true;
    try {
      await waitFor(
        async () => {
          const open = await db.query<{ n: string }>(
            `SELECT
               (SELECT count(*) FROM batches WHERE state <> 'completed')
             + (SELECT count(*) FROM messages WHERE state = ANY($1::text[]))
             + (SELECT count(*) FROM callback_attempts WHERE state = 'pending')
             + (SELECT count(*) FROM outcome_outbox) AS n`,
            [[...UNSENT_STATES]],
          );
          return open.rows[0].n === '0';
        },
        options.settleMs,
        'the run settled',
        1000,
      );
      await sleep(1500);
    } catch {
      settled = false;
    }

    const { rows: messages } = await db.query<MessageRow>(
      `SELECT id, batch_id, state, to_addr, cost::text AS cost, error FROM messages`,
    );
    const { rows: ledger } = await db.query<{
      reason: string;
      amount: string;
      message_id: string | null;
    }>(`SELECT reason, amount::text AS amount, message_id FROM credit_ledger`);
    const { rows: accounts } = await db.query<{ balance: string }>(
      `SELECT balance::text AS balance FROM accounts WHERE username = 'faults'`,
    );
    const { rows: batches } = await db.query<{ state: string; total: number; expanded: number }>(
      `SELECT state, total, expanded FROM batches WHERE id = $1`,
      [batchId],
    );
    const { rows: callbackRows } = await db.query<{
      message_id: string;
      kind: string;
      state: string;
    }>(`SELECT message_id, kind, state FROM callback_attempts`);

    const atSmsc = new Map<string, number>();
    for (const r of sim.received) atSmsc.set(r.to, (atSmsc.get(r.to) ?? 0) + 1);
    const refunded = new Set(
      ledger.filter((l) => l.reason === 'refund' && l.message_id).map((l) => l.message_id!),
    );
    const sentStates = new Set<string>(SENT_STATES);
    const unsentStates = new Set<string>(UNSENT_STATES);
    const result: RunResult = {
      fault: fault.name,
      batchSize: options.batchSize,
      singles: messages.filter((m) => m.batch_id === null).length,
      accepted: messages.length,
      sent: 0,
      duplicated: 0,
      lost: 0,
      unknownOutcome: 0,
      unknownNotAtSmsc: 0,
      failedRefunded: 0,
      refundedAndSent: 0,
      chargedNotSent: 0,
      stranded: {},
      batchState: batches[0]?.state ?? 'missing',
      notExpanded: batches[0] ? batches[0].total - batches[0].expanded : options.batchSize,
      callbacksDue: 0,
      callbacksMadeOnce: 0,
      callbacksDuplicated: 0,
      callbacksMissing: 0,
      callbacksGivenUp: 0,
      callbacksRepeatedSameId: receiver.repeats(),
      missingByKind: {},
      moneyDifference: '0.000000',
      ledgerMismatch: '0.000000',
      errorLogLines: {},
      settled,
      seconds: 0,
    };
    let charges = 0n;
    let expectedRefunds = 0n;
    for (const m of messages) {
      const times = atSmsc.get(m.to_addr) ?? 0;
      charges += micros(m.cost);
      if (times > 0) result.sent++;
      if (times > 1) result.duplicated += times - 1;
      if (refunded.has(m.id)) {
        expectedRefunds += micros(m.cost);
        if (times > 0) result.refundedAndSent++;
        else result.failedRefunded++;
      } else if (unsentStates.has(m.state)) {
        result.stranded[m.state] = (result.stranded[m.state] ?? 0) + 1;
        if (times === 0) result.lost++;
      } else if (m.state === 'failed' && m.error?.startsWith(UNKNOWN_OUTCOME)) {
        // Written and never answered: the SMSC may or may not have it (a PDU in a dropped session's
        // buffers never arrives), and Promise 2 neither resends nor refunds it.
        result.unknownOutcome++;
        if (times === 0) result.unknownNotAtSmsc++;
      } else if (times === 0) {
        // Final without reaching the SMSC: only an explained failure is an outcome.
        if (sentStates.has(m.state) || !m.error) result.lost++;
        else if (m.state !== 'cancelled') result.chargedNotSent++;
      } else if (m.state === 'failed') {
        // At the SMSC yet failed for another reason than an unknown outcome.
        result.chargedNotSent++;
      }
    }
    // Recipients never expanded were charged with the batch and never became messages.
    const unexpandedCost = micros(RATE) * BigInt(result.notExpanded);
    result.lost += result.notExpanded;

    const sum = (reason: string) =>
      ledger.filter((l) => l.reason === reason).reduce((s, l) => s + micros(l.amount), 0n);
    const debits = -sum('debit');
    const refunds = sum('refund');
    const start = sum('credit');
    result.moneyDifference = money(micros(accounts[0]?.balance) - (start - debits + refunds));
    result.ledgerMismatch = money(
      debits - (charges + unexpandedCost) + (refunds - expectedRefunds),
    );

    // Callbacks: every row the notifier was given is due; a 200 from the receiver makes it.
    const toOf = new Map(messages.map((m) => [m.id, m.to_addr]));
    const batchMade = receiver.made('/batch-ok', (q) => `callback|${q['to']}`);
    for (const [k, n] of receiver.made('/batch-error', (q) => `errback|${q['to']}`))
      batchMade.set(k, n);
    const dlrMade = receiver.made('/dlr', (q) => `dlr${q['level']}|${q['id']}`);
    const withRow = new Set<string>();
    for (const row of callbackRows) {
      withRow.add(row.message_id);
      result.callbacksDue++;
      const key =
        row.kind === 'callback' || row.kind === 'errback'
          ? `${row.kind}|${toOf.get(row.message_id)}`
          : `${row.kind}|${row.message_id}`;
      const made = (row.kind.startsWith('dlr') ? dlrMade.get(key) : batchMade.get(key)) ?? 0;
      if (row.state === 'given_up') result.callbacksGivenUp++;
      if (made === 1) result.callbacksMadeOnce++;
      else if (made > 1) result.callbacksDuplicated++;
      else {
        result.callbacksMissing++;
        const why = `${row.kind}:${row.state}`;
        result.missingByKind[why] = (result.missingByKind[why] ?? 0) + 1;
      }
    }
    // A batch message that reached an outcome is owed its callback or errback even if no row says so.
    const kindsOf = new Map<string, Set<string>>();
    for (const row of callbackRows)
      kindsOf.set(row.message_id, (kindsOf.get(row.message_id) ?? new Set()).add(row.kind));
    for (const m of messages) {
      const owed: string[] = [];
      if (m.batch_id && !unsentStates.has(m.state) && m.state !== 'cancelled' && !withRow.has(m.id))
        owed.push('callback');
      // Singles ask for both reports: the SMSC's answer, and the receipt once delivered.
      if (!m.batch_id && sentStates.has(m.state) && !kindsOf.get(m.id)?.has('dlr1'))
        owed.push('dlr1');
      if (!m.batch_id && m.state === 'delivered' && !kindsOf.get(m.id)?.has('dlr2'))
        owed.push('dlr2');
      result.callbacksDue += owed.length;
      result.callbacksMissing += owed.length;
      for (const kind of owed) {
        const why = `${kind}:no-row:${m.state}`;
        result.missingByKind[why] = (result.missingByKind[why] ?? 0) + 1;
      }
    }

    const logDir = process.env['FAULTS_LOGS'];
    if (logDir) {
      const dir = join(logDir, fault.name.replace(/\W+/g, '-'));
      mkdirSync(dir, { recursive: true });
      everyProcess.forEach((service, i) =>
        writeFileSync(join(dir, `${i}-${service.name}.log`), service.output()),
      );
    }
    for (const service of everyProcess) {
      const lines = service
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line)).length;
      if (lines > 0)
        result.errorLogLines[service.name] = (result.errorLogLines[service.name] ?? 0) + lines;
    }
    result.seconds = Math.round((Date.now() - started) / 1000);
    return result;
  } finally {
    await Promise.all(everyProcess.map((s) => s.stop()));
    await sim.stop();
    await receiver.stop();
    await db.close();
    await database.drop().catch(() => undefined);
    await deleteBusNamespace(infra.rabbit.url, namespace, {
      [QUEUES.dispatcherSubmit]: submitRetryDelays(5),
      [QUEUES.dispatcherSubmitGroup]: submitRetryDelays(5),
    }).catch(() => undefined);
  }
}
