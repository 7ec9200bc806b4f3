import { SENT_STATES, UNSENT_STATES } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import type { SmppSimulator } from '@smsgw/smsc';
import type { WebhookReceiver } from './webhook';

/** What a run ended with, by message id, from the simulator's record and the database. */
export interface Accounting {
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
  /** `completed` when every batch is, else the state of one that is not. */
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
}

/** The error of a message whose submit_sm was written and never answered (Promise 2). */
const UNKNOWN_OUTCOME = 'SUBMIT_OUTCOME_UNKNOWN';

/** Exact decimal arithmetic on numeric(20,6) strings, in millionths. */
export function micros(value: string | null | undefined): bigint {
  if (!value) return 0n;
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = value.replace('-', '').split('.');
  const m = BigInt(whole) * 1_000_000n + BigInt((fraction + '000000').slice(0, 6));
  return negative ? -m : m;
}
export function money(m: bigint): string {
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
 * Waits until the run settled: every batch finished, nothing waits to be sent, no receipt, callback
 * or inbound message outstanding, and no outcome event waits in the outbox (one whose publish died
 * with its process is taken up by the notifier's sweep a while later). Bounded: false when it did
 * not settle in time, and the run is then reported as it stands.
 */
export async function settle(db: Queryable, withinMs: number): Promise<boolean> {
  try {
    await waitFor(
      async () => {
        const open = await db.query<{ n: string }>(
          `SELECT
             (SELECT count(*) FROM batches WHERE state <> 'completed')
           + (SELECT count(*) FROM messages WHERE state = ANY($1::text[]))
           + (SELECT count(*) FROM callback_attempts WHERE state = 'pending')
           + (SELECT count(*) FROM inbound_messages WHERE state IN ('received', 'routed'))
           + (SELECT count(*) FROM outcome_outbox) AS n`,
          [[...UNSENT_STATES]],
        );
        return open.rows[0].n === '0';
      },
      withinMs,
      'the run settled',
      1000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    return true;
  } catch {
    return false;
  }
}

/**
 * Every message of the account final or accounted for by rule, each sent at most once, money
 * exact to the millionth, and each callback made once (a repeat of the same callback id is
 * recognisable and counted apart). Inbound messages' webhooks (kind `mo`) are left to the caller.
 */
export async function account(
  db: Queryable,
  sim: SmppSimulator,
  receiver: WebhookReceiver,
  options: { username: string; rate: string },
): Promise<Accounting> {
  const { rows: messages } = await db.query<MessageRow>(
    `SELECT id, batch_id, state, to_addr, cost::text AS cost, error FROM messages`,
  );
  const { rows: ledger } = await db.query<{
    reason: string;
    amount: string;
    message_id: string | null;
  }>(`SELECT reason, amount::text AS amount, message_id FROM credit_ledger`);
  const { rows: accounts } = await db.query<{ balance: string }>(
    `SELECT balance::text AS balance FROM accounts WHERE username = $1`,
    [options.username],
  );
  const { rows: batches } = await db.query<{ state: string; total: number; expanded: number }>(
    `SELECT state, total, expanded FROM batches`,
  );
  const { rows: callbackRows } = await db.query<{
    message_id: string;
    kind: string;
    state: string;
  }>(`SELECT message_id, kind, state FROM callback_attempts WHERE kind <> 'mo'`);

  const atSmsc = new Map<string, number>();
  for (const r of sim.received) atSmsc.set(r.to, (atSmsc.get(r.to) ?? 0) + 1);
  const refunded = new Set(
    ledger.filter((l) => l.reason === 'refund' && l.message_id).map((l) => l.message_id!),
  );
  const sentStates = new Set<string>(SENT_STATES);
  const unsentStates = new Set<string>(UNSENT_STATES);
  const open = batches.find((b) => b.state !== 'completed');
  const result: Accounting = {
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
    batchState: open ? open.state : batches.length ? 'completed' : 'missing',
    notExpanded: batches.reduce((n, b) => n + b.total - b.expanded, 0),
    callbacksDue: 0,
    callbacksMadeOnce: 0,
    callbacksDuplicated: 0,
    callbacksMissing: 0,
    callbacksGivenUp: 0,
    callbacksRepeatedSameId: receiver.repeats(),
    missingByKind: {},
    moneyDifference: '0.000000',
    ledgerMismatch: '0.000000',
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
  const unexpandedCost = micros(options.rate) * BigInt(result.notExpanded);
  result.lost += result.notExpanded;

  const sum = (reason: string) =>
    ledger.filter((l) => l.reason === reason).reduce((s, l) => s + micros(l.amount), 0n);
  const debits = -sum('debit');
  const refunds = sum('refund');
  const start = sum('credit');
  result.moneyDifference = money(micros(accounts[0]?.balance) - (start - debits + refunds));
  result.ledgerMismatch = money(debits - (charges + unexpandedCost) + (refunds - expectedRefunds));

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
  return result;
}
