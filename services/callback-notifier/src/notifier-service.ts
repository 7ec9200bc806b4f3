import { createSendAcceptance } from '@smsgw/acceptance';
import {
  QUEUES,
  TOPICS,
  type MessageDlrEvent,
  type MessageResultEvent,
  type UnlistedSenderMode,
} from '@smsgw/contracts';
import {
  envVars,
  PollingLoop,
  UrlGuard,
  type Bus,
  type Consumer,
  type Db,
  type Logger,
} from '@smsgw/kit';
import type { Registry } from 'prom-client';
import { CallbackSender } from './callback-sender';
import { CallbackStore } from './callback-store';
import { CallbackWorker } from './callback-worker';
import { DlrCallbacks } from './dlr-callbacks';
import { SmppReceipts } from './smpp-receipts';
import { OutcomeOutbox } from './outcome-outbox';
import { createNotifierMetrics } from './metrics';
import { ResultCallbacks } from './result-callbacks';
import { InboundRouter } from './inbound-router';
import { SmsServiceReplies } from './sms-service-replies';
import type { OptOutKeywords } from './opt-out-keywords';
import { notifierDefaults } from './defaults';

export interface NotifierServiceOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  allowedHosts: readonly string[];
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
  hostConcurrency: number;
  pollIntervalMs?: number;
  /** An outcome event not seen this long after its state change is taken from the outbox. */
  outboxStaleMs?: number;
  /** Keywords of inbound messages that change the receiving account's opt-out list. */
  optOutKeywords: OptOutKeywords;
  /**
   * For the replies of Kannel sms-service routes, sent as the gateway sends any message
   * (MAX_PARTS and UNLISTED_SENDERS; their defaults when not given).
   */
  maxParts?: number;
  unlistedSenders?: UnlistedSenderMode;
  /** Replies an sms-service route sends one number a minute at most (KANNEL_REPLIES_PER_MINUTE). */
  kannelRepliesPerMinute?: number;
}

/** Notifier settings from its environment (distributed and embedded mode alike). */
export function notifierSettings(config: {
  CALLBACK_ALLOWED_HOSTS: string[];
  CALLBACK_MAX_ATTEMPTS: number;
  CALLBACK_RETRY_BASE_MS: number;
  CALLBACK_TIMEOUT_MS: number;
  CALLBACK_HOST_CONCURRENCY: number;
  OPTOUT_KEYWORDS: string[];
  OPTIN_KEYWORDS: string[];
  MAX_PARTS: number;
  UNLISTED_SENDERS: UnlistedSenderMode;
  KANNEL_REPLIES_PER_MINUTE: number;
}): Pick<
  NotifierServiceOptions,
  | 'allowedHosts'
  | 'maxAttempts'
  | 'retryBaseMs'
  | 'timeoutMs'
  | 'hostConcurrency'
  | 'optOutKeywords'
  | 'maxParts'
  | 'unlistedSenders'
  | 'kannelRepliesPerMinute'
> {
  return {
    allowedHosts: config.CALLBACK_ALLOWED_HOSTS,
    maxAttempts: config.CALLBACK_MAX_ATTEMPTS,
    retryBaseMs: config.CALLBACK_RETRY_BASE_MS,
    timeoutMs: config.CALLBACK_TIMEOUT_MS,
    hostConcurrency: config.CALLBACK_HOST_CONCURRENCY,
    optOutKeywords: { optOut: config.OPTOUT_KEYWORDS, optIn: config.OPTIN_KEYWORDS },
    maxParts: config.MAX_PARTS,
    unlistedSenders: config.UNLISTED_SENDERS,
    kannelRepliesPerMinute: config.KANNEL_REPLIES_PER_MINUTE,
  };
}

/** Owns every outgoing request to customer URLs (docs/architecture.md § The parts). */
export function createNotifierService(options: NotifierServiceOptions): {
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const store = new CallbackStore(options.db);
  const sender = new CallbackSender(new UrlGuard(options.allowedHosts), {
    timeoutMs: options.timeoutMs,
    hostConcurrency: options.hostConcurrency,
  });
  const metrics = createNotifierMetrics(options.registry, options);
  // Kannel sms-service answers go back to the subscriber through /secure/send's acceptance.
  const acceptance = createSendAcceptance({
    db: options.db,
    bus: options.bus,
    logger: options.logger,
    maxParts: options.maxParts ?? envVars.MAX_PARTS.parse(undefined),
    unlistedSenders: options.unlistedSenders ?? envVars.UNLISTED_SENDERS.parse(undefined),
  });
  const replies = new SmsServiceReplies(
    options.db,
    {
      accept: (principal, body, id) =>
        acceptance.accept(principal, body, { entry: 'kannel-reply', id }),
      exists: async (accountId, id) => (await acceptance.status(accountId, id)) !== undefined,
    },
    options.logger,
    metrics.repliesSuppressed,
    {
      perMinute:
        options.kannelRepliesPerMinute ?? envVars.KANNEL_REPLIES_PER_MINUTE.parse(undefined),
    },
  );
  const worker = new CallbackWorker(
    store,
    sender,
    options.logger,
    metrics,
    {
      maxAttempts: options.maxAttempts,
      retryBaseMs: options.retryBaseMs,
      pollIntervalMs: options.pollIntervalMs ?? notifierDefaults.pollIntervalMs,
      concurrency: notifierDefaults.concurrency,
      timeoutMs: options.timeoutMs,
    },
    replies,
  );
  const results = new ResultCallbacks(store);
  const dlrs = new DlrCallbacks(store);
  const smppReceipts = new SmppReceipts(options.db);
  const handlers = {
    async result(event: MessageResultEvent) {
      const queued = [await results.handle(event), await dlrs.onResult(event)];
      if (queued.some(Boolean)) worker.wake();
    },
    async dlr(event: MessageDlrEvent) {
      await smppReceipts.onReceipt(event);
      if (await dlrs.onReceipt(event)) worker.wake();
    },
  };
  const outbox = new OutcomeOutbox(options.db, handlers, options.logger, {
    staleMs: options.outboxStaleMs ?? notifierDefaults.outboxStaleMs,
    pollIntervalMs: Math.min(
      options.outboxStaleMs ?? notifierDefaults.outboxStaleMs,
      notifierDefaults.maxOutboxPollMs,
    ),
  });
  const inbound = new InboundRouter(
    options.db,
    store,
    options.logger,
    metrics.inboundRouted,
    options.optOutKeywords,
    notifierDefaults.inbound.routesTtlMs,
  );
  const inboundSweep = new PollingLoop(
    async () => {
      if (await inbound.sweep(notifierDefaults.inbound.staleMs)) worker.wake();
    },
    options.logger,
    'inbound sweep',
  );
  const consumers: Consumer[] = [];
  return {
    async start() {
      consumers.push(
        await options.bus.consume(
          {
            queue: QUEUES.notifierResults,
            topic: TOPICS.messageResult,
            prefetch: notifierDefaults.prefetch,
          },
          async (event) => {
            await handlers.result(event);
            await outbox.clear(event.messageId, TOPICS.messageResult);
          },
        ),
        await options.bus.consume(
          {
            queue: QUEUES.notifierDlr,
            topic: TOPICS.messageDlr,
            prefetch: notifierDefaults.prefetch,
          },
          async (event) => {
            await handlers.dlr(event);
            await outbox.clear(event.messageId, TOPICS.messageDlr);
          },
        ),
        // The reports of one recorded group: handled together, so their rows share statements;
        // the broker message is acknowledged once every report has its rows.
        await options.bus.consume(
          {
            queue: QUEUES.notifierDlrGroup,
            topic: TOPICS.messageDlrGroup,
            prefetch: notifierDefaults.dlrGroupPrefetch,
          },
          async ({ reports }) => {
            await Promise.all(
              reports.map(async (event) => {
                await handlers.dlr(event);
                await outbox.clear(event.messageId, TOPICS.messageDlr);
              }),
            );
          },
        ),
        await options.bus.consume(
          {
            queue: QUEUES.notifierInbound,
            topic: TOPICS.inboundReceived,
            prefetch: notifierDefaults.prefetch,
          },
          async (event) => {
            if (await inbound.route(event.inboundId)) worker.wake();
          },
        ),
      );
      worker.start();
      outbox.start();
      inboundSweep.start(notifierDefaults.inbound.sweepEveryMs);
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.cancel()));
      await outbox.stop();
      await inboundSweep.stop();
      await worker.stop();
      for (const step of acceptance.stopSteps) await step.run();
    },
  };
}
