import type { Router } from 'express';
import type { UnlistedSenderMode } from '@smsgw/contracts';
import type { Registry } from 'prom-client';
import { createGatewayMetrics } from './metrics';
import type { Bus, Db, Logger, ShutdownStep } from '@smsgw/kit';
import { AcceptanceBatcher } from './acceptance-batcher';
import type { CredentialVerifier } from './credential-client';
import { BatchIntake } from './batch-intake';
import { BatchStore } from './batch-store';
import { MessageIntake } from './message-intake';
import { MessageStore } from './message-store';
import { JobOutbox } from './job-outbox';
import { SubmitJobPublisher } from './submit-jobs';
import { createGatewayRoutes } from './routes';
import { SenderGuard } from './sender-guard';

export interface GatewayOptions {
  registry: Registry;
  db: Db;
  bus: Bus;
  verifier: CredentialVerifier;
  logger: Logger;
  maxParts: number;
  maxBodyBytes: number;
  maxBatchBytes: number;
  maxBatchRecipients: number;
  maxScheduleDays: number;
  /** Batches above this many bytes are large: one per account in reading at a time. */
  largeBatchBytes: number;
  /** Senders of accounts without a sender list (UNLISTED_SENDERS). */
  unlistedSenders: UnlistedSenderMode;
}

/** The gateway's settings from its environment (distributed and embedded mode alike). */
export function gatewaySettings(config: {
  MAX_PARTS: number;
  MAX_BODY_BYTES: number;
  MAX_BATCH_BYTES: number;
  MAX_BATCH_RECIPIENTS: number;
  MAX_SCHEDULE_DAYS: number;
  LARGE_BATCH_BYTES: number;
  UNLISTED_SENDERS: UnlistedSenderMode;
}): Pick<
  GatewayOptions,
  | 'maxParts'
  | 'maxBodyBytes'
  | 'maxBatchBytes'
  | 'maxBatchRecipients'
  | 'maxScheduleDays'
  | 'largeBatchBytes'
  | 'unlistedSenders'
> {
  return {
    maxParts: config.MAX_PARTS,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxBatchBytes: config.MAX_BATCH_BYTES,
    maxBatchRecipients: config.MAX_BATCH_RECIPIENTS,
    maxScheduleDays: config.MAX_SCHEDULE_DAYS,
    largeBatchBytes: config.LARGE_BATCH_BYTES,
    unlistedSenders: config.UNLISTED_SENDERS,
  };
}

/**
 * At most this much delivery latency is spent gathering a stream of single sends into group jobs
 * (a send that comes alone goes at once). At 2,000 sends/s one acceptance statement holds about
 * ten; a group of many statements costs the broker and the dispatcher (one claim, one answers
 * statement) about as much as a group of one. Measured at 32 connections: with 10 ms, group jobs
 * of ~40 and 441–454 µs of CPU per send over all processes; with 30 ms, full groups (100 from
 * ~3,300 sends/s) and 359–378 µs.
 */
const SUBMIT_JOB_LINGER_MS = 30;

export interface GatewayService {
  routes: Router;
  store: MessageStore;
  intake: MessageIntake;
  /** After the HTTP server stopped taking requests, before the bus and database close. */
  stopSteps: ShutdownStep[];
}

export function createGatewayService(options: GatewayOptions): GatewayService {
  const store = new MessageStore(options.db);
  const { accepted } = createGatewayMetrics(options.registry);
  const outbox = new JobOutbox(store, options.logger);
  const intake = new MessageIntake(
    new AcceptanceBatcher(store, options.logger, { outbox }),
    outbox,
    // The answer does not wait for the confirm, so jobs may wait a little to share broker messages.
    new SubmitJobPublisher(options.bus, { lingerMs: SUBMIT_JOB_LINGER_MS }),
    options.logger,
    options.maxParts,
    () => accepted.inc({ kind: 'single' }),
  );
  const senders = new SenderGuard(options.db, options.unlistedSenders);
  const batchStore = new BatchStore(options.db);
  const batches = new BatchIntake(
    batchStore,
    options.bus,
    options.logger,
    {
      maxParts: options.maxParts,
      maxRecipients: options.maxBatchRecipients,
      maxScheduleDays: options.maxScheduleDays,
      maxBytes: options.maxBatchBytes,
      largeBytes: options.largeBatchBytes,
    },
    senders,
    (recipients) => accepted.inc({ kind: 'batch' }, recipients),
  );
  const routes = createGatewayRoutes({
    verifier: options.verifier,
    intake,
    store,
    batches,
    batchStore,
    senders,
    maxBodyBytes: options.maxBodyBytes,
    maxBatchBytes: options.maxBatchBytes,
    maxParts: options.maxParts,
  });
  return {
    routes,
    store,
    intake,
    stopSteps: [
      { name: 'unconfirmed jobs', run: () => intake.drain() },
      { name: 'job outbox', run: () => outbox.drain() },
    ],
  };
}
