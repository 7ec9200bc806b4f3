import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { UnlistedSenderMode } from '@smsgw/contracts';
import { createSendAcceptance } from '@smsgw/acceptance';
import type { Bus, Db, Logger, ShutdownStep } from '@smsgw/kit';
import { MemoryAccountLimits, RedisAccountLimits } from './account-limits';
import type { BindCredentials } from './bind-credentials';
import { Deliveries } from './deliveries';
import { createSmppServerMetrics } from './metrics';
import { SmppServer } from './smpp-server';

/** The smpp-server's settings from its environment (distributed and embedded mode alike). */
export interface SmppServerConfig {
  HOST: string;
  REDIS_URL?: string | undefined;
  BUS_NAMESPACE: string;
  MAX_PARTS: number;
  UNLISTED_SENDERS: UnlistedSenderMode;
  SMPP_SERVER_PORT: number;
  SMPP_SERVER_TLS_PORT: number;
  SMPP_SERVER_TLS_CERT?: string | undefined;
  SMPP_SERVER_TLS_KEY?: string | undefined;
  SMPP_BIND_TIMEOUT_MS: number;
  SMPP_IDLE_TIMEOUT_MS: number;
  SMPP_ENQUIRE_LINK_MS: number;
  SMPP_WINDOW: number;
  SMPP_RECEIPT_EXPIRY_HOURS: number;
  SMPP_MAX_CONNECTIONS: number;
  SMPP_PENDING_PER_ADDRESS: number;
  SMPP_MAX_UNSENT_BYTES: number;
  SMPP_STALLED_OUTPUT_MS: number;
}

export interface SmppServerServiceOptions {
  config: SmppServerConfig;
  db: Db;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  credentials: BindCredentials;
}

export interface SmppServerService {
  server: SmppServer;
  start(): Promise<void>;
  /** Sessions unbound first, then the acceptance's unconfirmed jobs and outbox. */
  stopSteps: ShutdownStep[];
}

/** The SMPP server with the acceptance of /secure/send, as both modes run it. */
export function createSmppServerService(options: SmppServerServiceOptions): SmppServerService {
  const { config, logger } = options;
  const metrics = createSmppServerMetrics(options.registry);
  const acceptance = createSendAcceptance({
    db: options.db,
    bus: options.bus,
    logger,
    maxParts: config.MAX_PARTS,
    unlistedSenders: config.UNLISTED_SENDERS,
    onAccepted: () => metrics.accepted.inc({ kind: 'smpp' }),
  });
  const tls =
    config.SMPP_SERVER_TLS_CERT !== undefined && config.SMPP_SERVER_TLS_KEY !== undefined
      ? {
          port: config.SMPP_SERVER_TLS_PORT,
          certFile: config.SMPP_SERVER_TLS_CERT,
          keyFile: config.SMPP_SERVER_TLS_KEY,
        }
      : undefined;
  const server = new SmppServer({
    db: options.db,
    bus: options.bus,
    credentials: options.credentials,
    limits: config.REDIS_URL
      ? new RedisAccountLimits(config.REDIS_URL, logger, undefined, config.BUS_NAMESPACE)
      : new MemoryAccountLimits(),
    acceptance,
    metrics,
    logger,
    settings: {
      bindTimeoutMs: config.SMPP_BIND_TIMEOUT_MS,
      idleTimeoutMs: config.SMPP_IDLE_TIMEOUT_MS,
      enquireLinkMs: config.SMPP_ENQUIRE_LINK_MS,
      window: config.SMPP_WINDOW,
      systemId: 'smsgw',
      maxUnsentBytes: config.SMPP_MAX_UNSENT_BYTES,
      stalledOutputMs: config.SMPP_STALLED_OUTPUT_MS,
    },
    listen: {
      host: config.HOST,
      port: config.SMPP_SERVER_PORT,
      tls,
      maxConnections: config.SMPP_MAX_CONNECTIONS,
      maxPendingPerAddress: config.SMPP_PENDING_PER_ADDRESS,
    },
    replica: hostname(),
  });
  const deliveries = new Deliveries(options.db, server, metrics, logger, {
    pollMs: 500,
    answerTimeoutMs: 10_000,
    expiryHours: config.SMPP_RECEIPT_EXPIRY_HOURS,
    batch: 200,
  });
  return {
    server,
    async start() {
      await server.start();
      deliveries.start();
      logger.info({ port: server.port, tlsPort: server.tlsPort }, 'SMPP server listening');
    },
    stopSteps: [{ name: 'smpp sessions', run: () => server.stop() }, ...acceptance.stopSteps],
  };
}
