import {
  DEFAULT_CONNECTOR,
  FINAL_STATES,
  formatDecimal,
  type MessageState,
  type TimelineEvent,
  type TimelineEventKind,
} from '@smsgw/contracts';
import type {
  MessageStoryRow,
  StoryCallbackRow,
  StoryLedgerRow,
  StoryPartRow,
  StorySmppDeliveryRow,
} from '@smsgw/store';
import { CODING_NAMES } from '@smsgw/smsc';

/** What a message's story is told from: its row and the rows that name it. */
export interface StoryFacts {
  message: MessageStoryRow;
  parts: readonly StoryPartRow[];
  ledger: readonly StoryLedgerRow[];
  callbacks: readonly StoryCallbackRow[];
  smppReceipt: StorySmppDeliveryRow | undefined;
}

/** States a delivery receipt leads to; `failed` and `cancelled` are our own. */
const RECEIPT_STATES = new Set<string>(['delivered', 'undelivered', 'expired', 'rejected']);

const ENTRY_TEXT: Record<string, string> = {
  rest: 'the REST API (/secure/send)',
  'jasmin-http': "Jasmin's HTTP interface (/send)",
  'kannel-sendsms': "Kannel's sendsms",
  smpp: "the customer's SMPP session (submit_sm)",
  'kannel-reply': "a Kannel sms-service route's reply",
  batch: 'a batch (/secure/sendbatch)',
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const negated = (amount: string): string => formatDecimal(amount.replace(/^-/, ''));

/**
 * The story of a message in order: accepted, charged, routed, each connector it was offered to,
 * its submit, parts and receipt or failure, the requests to the customer's URLs, refunds. Each
 * step is told from what the gateway keeps; a step whose time is not kept has `at: null` and
 * stays where it happened in the order.
 */
export function messageStory(facts: StoryFacts): TimelineEvent[] {
  const m = facts.message;
  const events: TimelineEvent[] = [];
  const add = (
    at: Date | null,
    event: TimelineEventKind,
    text: string,
    detail: Record<string, unknown> = {},
  ) => events.push({ at: at?.toISOString() ?? null, event, text, detail });

  add(
    m.created_at,
    'accepted',
    `Accepted through ${m.entry === null ? 'an entry point not recorded (accepted before entry points were kept)' : (ENTRY_TEXT[m.entry] ?? m.entry)}` +
      `${m.batch_id === null ? '' : ` as part of batch ${m.batch_id}`}: ${plural(m.segments, 'part')}, ${CODING_NAMES[m.coding] ?? `coding ${m.coding}`}`,
    { entry: m.entry, batchId: m.batch_id, segments: m.segments, coding: m.coding },
  );
  for (const row of facts.ledger.filter((l) => l.reason === 'debit'))
    add(
      row.created_at,
      'charged',
      row.batch_wide
        ? `Charged with its batch: the batch was debited ${negated(row.amount)} whole; this message's share is ${formatDecimal(m.cost)}`
        : `Charged ${negated(row.amount)} for ${plural(Number(negated(row.sms_count)), 'part')}` +
            (m.price_version === null
              ? ''
              : `, priced by list ${m.price_list ?? '(deleted)'} version ${m.price_version}`),
      {
        amount: negated(row.amount),
        batchWide: row.batch_wide,
        cost: formatDecimal(m.cost),
        priceList: m.price_list,
        priceVersion: m.price_version,
      },
    );
  const planned = m.connectors ?? [m.connector_trail[0] ?? DEFAULT_CONNECTOR];
  add(
    m.created_at,
    'routed',
    m.route === null
      ? `No MT route: sent through the ${planned[0] ?? DEFAULT_CONNECTOR} connector`
      : `Routed by ${m.route} to ${planned.join(', then ')}`,
    {
      route: m.route,
      connectors: planned,
      pricePerPart: m.segments > 0 ? formatDecimal((Number(m.cost) / m.segments).toFixed(6)) : null,
    },
  );
  m.connector_trail.forEach((connector, i) => {
    if (i === 0) {
      add(null, 'offered', `Queued for connector ${connector}`, { connector });
      return;
    }
    add(null, 'failover', `Failed over from ${m.connector_trail[i - 1]} to ${connector}`, {
      from: m.connector_trail[i - 1],
      to: connector,
    });
  });
  if (m.attempts > 0 && m.submitted_at === null && m.submit_started_at !== null)
    add(
      m.submit_started_at,
      'submitted',
      `Submit ${m.attempts} began on ${m.connector_trail.at(-1) ?? DEFAULT_CONNECTOR}` +
        `${m.unanswered_submits > 0 ? `; ${plural(m.unanswered_submits, 'submit_sm')} never answered` : ''}`,
      { attempts: m.attempts, unansweredSubmits: m.unanswered_submits },
    );
  if (m.submitted_at !== null)
    add(
      m.submitted_at,
      'submitted',
      `Accepted by the SMSC of ${m.connector ?? 'its connector'} (submit_sm_resp OK)` +
        `${m.smsc_id === null ? '' : `, SMSC id ${m.smsc_id}`} after ${plural(m.attempts, 'attempt')}` +
        `${m.supplier_cost === null ? '' : `; it cost ${formatDecimal(m.supplier_cost)} by cost list version ${m.cost_version}`}`,
      {
        connector: m.connector,
        smscId: m.smsc_id,
        attempts: m.attempts,
        status: 'ESME_ROK',
        supplierCost: m.supplier_cost,
        costVersion: m.cost_version,
      },
    );
  for (const part of facts.parts) {
    add(
      null,
      'part',
      `Part ${part.seq} accepted by the SMSC${part.smsc_id === null ? '' : ` as ${part.smsc_id}`}`,
      { seq: part.seq, smscId: part.smsc_id },
    );
    if (part.stat !== null)
      add(
        part.updated_at,
        'receipt',
        `Receipt of part ${part.seq}: ${part.stat}${part.err === null ? '' : ` err:${part.err}`}`,
        { seq: part.seq, stat: part.stat, err: part.err, state: part.state },
      );
  }
  const state = m.state as MessageState;
  if (RECEIPT_STATES.has(state) && facts.parts.length === 0)
    add(
      m.updated_at,
      'receipt',
      `Receipt: ${state}${m.error === null ? '' : ` (${m.error})`}`,
      receiptDetail(state, m.error),
    );
  else if (state === 'failed')
    add(m.updated_at, 'failed', `Failed: ${m.error ?? 'no error recorded'}`, { error: m.error });
  else if (state === 'cancelled')
    add(m.updated_at, 'cancelled', 'Cancelled with its batch before it was sent', {});
  else if (RECEIPT_STATES.has(state))
    add(m.updated_at, 'receipt', `Ended ${state} by its parts' receipts`, { state });
  for (const c of facts.callbacks)
    add(
      c.updated_at,
      'callback',
      `${CALLBACK_TEXT[c.kind] ?? c.kind} ${c.method} ${c.url}: ${CALLBACK_STATE_TEXT[c.state] ?? c.state} after ${plural(c.attempts, 'attempt')}` +
        `${c.last_outcome === null ? '' : `, last answer ${c.last_outcome}`}`,
      {
        kind: c.kind,
        url: c.url,
        method: c.method,
        state: c.state,
        attempts: c.attempts,
        lastOutcome: c.last_outcome,
        createdAt: c.created_at.toISOString(),
      },
    );
  if (facts.smppReceipt)
    add(
      facts.smppReceipt.created_at,
      'smpp_receipt',
      `Receipt waiting for the customer's SMPP session (deliver_sm tried ${plural(facts.smppReceipt.attempts, 'time')})`,
      {
        attempts: facts.smppReceipt.attempts,
        nextAttemptAt: facts.smppReceipt.next_attempt_at.toISOString(),
      },
    );
  else if (m.report_style === 'smpp' && FINAL_STATES.includes(state) && RECEIPT_STATES.has(state))
    add(null, 'smpp_receipt', "Receipt handed to the customer's SMPP session (deliver_sm)", {});
  for (const row of facts.ledger.filter((l) => l.reason === 'refund'))
    add(
      row.created_at,
      'refunded',
      row.batch_wide
        ? `Refunded with its batch's cancel: the batch's waiting messages got ${formatDecimal(row.amount)} back together`
        : `Refunded ${formatDecimal(row.amount)}`,
      { amount: formatDecimal(row.amount), batchWide: row.batch_wide },
    );
  return inOrder(events);
}

const CALLBACK_TEXT: Record<string, string> = {
  callback: 'Callback',
  errback: 'Errback',
  dlr1: 'Delivery report (level 1)',
  dlr2: 'Delivery report (level 2)',
};

const CALLBACK_STATE_TEXT: Record<string, string> = {
  pending: 'still being tried',
  done: 'answered',
  given_up: 'given up',
};

/** A receipt's stat and err, as the dispatcher keeps them in the error (`STAT err:ERR`). */
function receiptDetail(state: string, error: string | null): Record<string, unknown> {
  const match = error === null ? null : /^(\S+) err:(.*)$/.exec(error);
  return match ? { state, stat: match[1], err: match[2] } : { state, stat: error, err: null };
}

/**
 * Sorted by time, a step without one kept right after the step before it: the order the steps
 * were added in is the order they happen in, and a stable sort keeps it among equal times.
 */
function inOrder(events: TimelineEvent[]): TimelineEvent[] {
  let last = '';
  const keyed = events.map((e, i) => {
    if (e.at !== null && e.at > last) last = e.at;
    return { e, key: e.at ?? last, i };
  });
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  return keyed.map((k) => k.e);
}
