import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { createGatewayMetrics } from './metrics';
import { compileProxyTrust, type Bus, type Db, type Logger, type ShutdownStep } from '@smsgw/kit';
import type { CredentialVerifier } from './credential-client';
import { BatchIntake } from './batch-intake';
import { BatchStore } from './batch-store';
import { MessageStore } from './message-store';
import { SendPipeline } from './send-pipeline/send-pipeline';
import { createGatewayRoutes } from './routes';

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
  corsAllowedOrigins: readonly string[];
  /** Proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
}

/** The gateway's settings from its environment (distributed and embedded mode alike). */
export function gatewaySettings(config: {
  MAX_PARTS: number;
  MAX_BODY_BYTES: number;
  MAX_BATCH_BYTES: number;
  MAX_BATCH_RECIPIENTS: number;
  MAX_SCHEDULE_DAYS: number;
  CORS_ALLOWED_ORIGINS: readonly string[];
  TRUSTED_PROXIES: string[];
}): Pick<
  GatewayOptions,
  | 'maxParts'
  | 'maxBodyBytes'
  | 'maxBatchBytes'
  | 'maxBatchRecipients'
  | 'maxScheduleDays'
  | 'corsAllowedOrigins'
  | 'trustedProxies'
> {
  return {
    maxParts: config.MAX_PARTS,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxBatchBytes: config.MAX_BATCH_BYTES,
    maxBatchRecipients: config.MAX_BATCH_RECIPIENTS,
    maxScheduleDays: config.MAX_SCHEDULE_DAYS,
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
    trustedProxies: config.TRUSTED_PROXIES,
  };
}

export interface GatewayService {
  routes: Router;
  store: MessageStore;
  sends: SendPipeline;
  /** After the HTTP server stopped taking requests, before the bus and database close. */
  stopSteps: ShutdownStep[];
}

export function createGatewayService(options: GatewayOptions): GatewayService {
  const store = new MessageStore(options.db);
  const { accepted } = createGatewayMetrics(options.registry);
  const sends = SendPipeline.onBus(store, options.bus, options.logger, {
    maxParts: options.maxParts,
    onAccepted: () => accepted.inc({ kind: 'single' }),
  });
  const batchStore = new BatchStore(options.db);
  const batches = new BatchIntake(
    batchStore,
    options.bus,
    options.logger,
    {
      maxParts: options.maxParts,
      maxRecipients: options.maxBatchRecipients,
      maxScheduleDays: options.maxScheduleDays,
    },
    (recipients) => accepted.inc({ kind: 'batch' }, recipients),
  );
  const routes = createGatewayRoutes({
    verifier: options.verifier,
    sends,
    store,
    batches,
    batchStore,
    maxBodyBytes: options.maxBodyBytes,
    maxBatchBytes: options.maxBatchBytes,
    maxParts: options.maxParts,
    corsAllowedOrigins: options.corsAllowedOrigins,
    trustedProxies: compileProxyTrust(options.trustedProxies),
  });
  return {
    routes,
    store,
    sends,
    stopSteps: sends.stopSteps,
  };
}
