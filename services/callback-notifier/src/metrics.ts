import { QUEUES } from '@smsgw/contracts';
import { exportQueueMetrics, type Bus, type Db } from '@smsgw/kit';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { countPendingCallbacks } from '@smsgw/store';

export interface NotifierMetrics {
  sent: Counter<'kind' | 'outcome'>;
  givenUp: Counter<'kind' | 'reason'>;
  /** Attempts a callback took, observed once it is done or given up. */
  attempts: Histogram<'kind' | 'outcome'>;
  /** Inbound messages routed: to a webhook, into an inbox, or unrouted, by connector. */
  inboundRouted: Counter<'connector' | 'outcome'>;
  /** sms-service replies not sent: a reply of ours come back, over the limit, a disabled account. */
  repliesSuppressed: Counter<'reason'>;
}

/** Every kind, so the pending gauge reads 0 rather than vanishing when a kind has none waiting. */
const KINDS = ['callback', 'errback', 'dlr1', 'dlr2', 'mo'] as const;

/** Names as docs/metrics.md lists them; `sources` adds the gauges read at scrape time. */
export function createNotifierMetrics(
  registry: Registry,
  sources?: { db: Db; bus: Bus },
): NotifierMetrics {
  const registers = [registry];
  if (sources) {
    exportQueueMetrics(registry, sources.bus, [
      QUEUES.notifierResults,
      QUEUES.notifierDlr,
      QUEUES.notifierDlrGroup,
      QUEUES.notifierInbound,
    ]);
    new Gauge({
      name: 'smsgw_callbacks_pending',
      help: 'Callback requests waiting for a first attempt or a retry, by kind',
      labelNames: ['kind'],
      registers,
      async collect() {
        const pending = await countPendingCallbacks(sources.db).catch(() => undefined);
        for (const kind of KINDS) this.set({ kind }, pending ? (pending.get(kind) ?? 0) : NaN);
      },
    });
  }
  return {
    sent: new Counter({
      name: 'smsgw_callback_requests_total',
      help: 'Requests to customer URLs, by kind and outcome (ok, retry, failed)',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    givenUp: new Counter({
      name: 'smsgw_callbacks_given_up_total',
      help: 'Callbacks given up, by kind and reason (attempts, refused, account_disabled, reply_unrecorded)',
      labelNames: ['kind', 'reason'],
      registers,
    }),
    attempts: new Histogram({
      name: 'smsgw_callback_attempts',
      help: 'Attempts a callback took to its final outcome (ok: answered, failed: given up), by kind',
      labelNames: ['kind', 'outcome'],
      buckets: [1, 2, 3, 4, 6, 10, 20, 50],
      registers,
    }),
    inboundRouted: createInboundRouteMetrics(registry),
    repliesSuppressed: createRepliesSuppressedMetric(registers),
  };
}

/** Why an sms-service reply is not sent (SmsServiceReplies). */
const SUPPRESSED_REASONS = ['own_reply', 'rate', 'account_disabled'] as const;
export type SuppressedReason = (typeof SUPPRESSED_REASONS)[number];

function createRepliesSuppressedMetric(registers: Registry[]): Counter<'reason'> {
  const counter = new Counter({
    name: 'smsgw_kannel_replies_suppressed_total',
    help: 'Kannel sms-service replies not sent, by reason (own_reply, rate, account_disabled)',
    labelNames: ['reason'],
    registers,
  });
  // Each reason at 0 from the start: a graph or alert of a rare event reads 0, not no data.
  for (const reason of SUPPRESSED_REASONS) counter.inc({ reason }, 0);
  return counter;
}

/** Inbound messages by routing outcome (InboundRouter). */
export function createInboundRouteMetrics(registry: Registry) {
  return new Counter({
    name: 'smsgw_inbound_routed_total',
    help: 'Inbound messages routed to an account (webhook or inbox), or kept unrouted',
    labelNames: ['connector', 'outcome'] as const,
    registers: [registry],
  });
}
