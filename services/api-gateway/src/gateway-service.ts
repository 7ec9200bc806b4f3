import type { Router } from 'express';
import type { SmppTlvDefinition, UnlistedSenderMode } from '@smsgw/contracts';
import type { Registry } from 'prom-client';
import { createGatewayMetrics } from './metrics';
import {
  compileProxyTrust,
  requestMeter,
  type Bus,
  type Db,
  type HotRoute,
  type Logger,
  type ShutdownStep,
} from '@smsgw/kit';
import type { CredentialVerifier } from './credential-client';
import { BatchIntake } from './batch-intake';
import { BatchStore } from './batch-store';
import {
  callbackUrlCheck,
  createAcceptanceRouter,
  createSendAcceptor,
  MessageStore,
  OptOutGuard,
  SendPipeline,
  SenderGuard,
} from '@smsgw/acceptance';
import {
  createGatewayRoutes,
  createLegacyAnswerers,
  createOwnPortRoutes,
  type GatewayRoutesDeps,
} from './routes';
import { firstHotRoute, legacyHotRoute } from './edge/legacy-hot-route';
import { jasminHttpPing, type OwnPortName } from './edge/own-ports';
import { InboundCredentials } from './inbound-credentials';
import { createSendHandler } from './send-handler';
import { hotSendRoute } from './hot-send-route';
import { paramsCaller, requestCaller } from './request-caller';
import {
  ConsoleSessions,
  consoleSessionTimes,
  createConsoleRoutes,
  type SessionTimes,
} from '@smsgw/console-session';
import { IdempotentRequests } from './idempotency';
import { IdempotencySweeper } from './idempotency-sweeper';

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
  /** How long an Idempotency-Key's answer is kept and replayed. */
  idempotencyWindowSeconds: number;
  /** Batches above this many bytes are large: one per account in reading at a time. */
  largeBatchBytes: number;
  /** Senders of accounts without a sender list (UNLISTED_SENDERS). */
  unlistedSenders: UnlistedSenderMode;
  corsAllowedOrigins: readonly string[];
  /** Proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  /** Customers see route and connector names (SHOW_ROUTES_TO_CUSTOMERS). */
  showRoutes: boolean;
  /** Private callback hosts a customer may name (CALLBACK_ALLOWED_HOSTS); others refused at acceptance. */
  callbackAllowedHosts: readonly string[];
  /** The `meta-data` keys sendsms clients may give (KANNEL_SMPP_TLVS). */
  kannelTlvs: readonly SmppTlvDefinition[];
  /** The longest range a customer's search or statistics query may name (SEARCH_MAX_DAYS). */
  searchMaxDays: number;
  /** How long a web console session lasts unused, and at most (CONSOLE_SESSION_*). */
  consoleSessions: SessionTimes;
  /** The built web console to serve at /console/ (its dist folder); unset serves none. */
  consoleDir?: string | undefined;
}

/** The gateway's settings from its environment (distributed and embedded mode alike). */
export function gatewaySettings(config: {
  MAX_PARTS: number;
  MAX_BODY_BYTES: number;
  MAX_BATCH_BYTES: number;
  MAX_BATCH_RECIPIENTS: number;
  MAX_SCHEDULE_DAYS: number;
  IDEMPOTENCY_WINDOW_SECONDS: number;
  LARGE_BATCH_BYTES: number;
  UNLISTED_SENDERS: UnlistedSenderMode;
  CORS_ALLOWED_ORIGINS: readonly string[];
  TRUSTED_PROXIES: string[];
  SHOW_ROUTES_TO_CUSTOMERS: boolean;
  CALLBACK_ALLOWED_HOSTS: readonly string[];
  KANNEL_SMPP_TLVS: readonly SmppTlvDefinition[];
  SEARCH_MAX_DAYS: number;
  CONSOLE_SESSION_IDLE_MINUTES: number;
  CONSOLE_SESSION_MAX_HOURS: number;
}): Pick<
  GatewayOptions,
  | 'maxParts'
  | 'maxBodyBytes'
  | 'maxBatchBytes'
  | 'maxBatchRecipients'
  | 'maxScheduleDays'
  | 'idempotencyWindowSeconds'
  | 'largeBatchBytes'
  | 'unlistedSenders'
  | 'corsAllowedOrigins'
  | 'trustedProxies'
  | 'showRoutes'
  | 'callbackAllowedHosts'
  | 'kannelTlvs'
  | 'searchMaxDays'
  | 'consoleSessions'
> {
  return {
    maxParts: config.MAX_PARTS,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxBatchBytes: config.MAX_BATCH_BYTES,
    maxBatchRecipients: config.MAX_BATCH_RECIPIENTS,
    maxScheduleDays: config.MAX_SCHEDULE_DAYS,
    idempotencyWindowSeconds: config.IDEMPOTENCY_WINDOW_SECONDS,
    largeBatchBytes: config.LARGE_BATCH_BYTES,
    unlistedSenders: config.UNLISTED_SENDERS,
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
    trustedProxies: config.TRUSTED_PROXIES,
    showRoutes: config.SHOW_ROUTES_TO_CUSTOMERS,
    callbackAllowedHosts: config.CALLBACK_ALLOWED_HOSTS,
    kannelTlvs: config.KANNEL_SMPP_TLVS,
    searchMaxDays: config.SEARCH_MAX_DAYS,
    consoleSessions: consoleSessionTimes(config),
  };
}

/**
 * A request whose Idempotency-Key is held by a request still running waits this long for its answer
 * (a large batch can take seconds), looking this often; then it is told to retry.
 */
const IDEMPOTENT_WAIT_MS = 60_000;
const IDEMPOTENT_POLL_MS = 50;

export interface GatewayService {
  routes: Router;
  /** What JASMIN_HTTP_PORT and KANNEL_SENDSMS_PORT serve (edge/own-ports.ts). */
  ownPortRoutes: Record<OwnPortName, Router>;
  /** Their GET sends ahead of express, on their own ports (none when CORS origins are configured). */
  ownPortHotRoutes: Record<OwnPortName, HotRoute | undefined>;
  /** POST /secure/send ahead of express (hotSendRoute); none when CORS origins are configured. */
  hotRoute: HotRoute | undefined;
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
  const senders = new SenderGuard(options.db, options.unlistedSenders);
  const optOuts = new OptOutGuard(options.db);
  const batchStore = new BatchStore(options.db);
  const { router, stop: stopRouting } = createAcceptanceRouter(options.db, options.logger);
  const callbackUrls = callbackUrlCheck(options.callbackAllowedHosts);
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
    optOuts,
    router,
    callbackUrls,
    (recipients) => accepted.inc({ kind: 'batch' }, recipients),
  );
  const idempotency = new IdempotentRequests(options.db, options.logger, {
    windowSeconds: options.idempotencyWindowSeconds,
    waitMs: IDEMPOTENT_WAIT_MS,
    pollMs: IDEMPOTENT_POLL_MS,
  });
  const sweeper = new IdempotencySweeper(options.db, options.logger);
  sweeper.start(Math.min(options.idempotencyWindowSeconds * 1000, 60_000));
  const accept = createSendAcceptor({ sends, senders, optOuts, router, callbackUrls });
  const send = createSendHandler(accept);
  const proxies = compileProxyTrust(options.trustedProxies);
  const sessions = new ConsoleSessions(options.db, options.consoleSessions);
  const caller = requestCaller(options.verifier, proxies, sessions);
  const routeDeps: GatewayRoutesDeps = {
    idempotency,
    db: options.db,
    caller,
    paramsCaller: paramsCaller(options.verifier, proxies),
    send,
    accept,
    logger: options.logger,
    store,
    batches,
    batchStore,
    maxBodyBytes: options.maxBodyBytes,
    maxBatchBytes: options.maxBatchBytes,
    maxParts: options.maxParts,
    corsAllowedOrigins: options.corsAllowedOrigins,
    showRoutes: options.showRoutes,
    kannelTlvs: options.kannelTlvs,
    searchMaxDays: options.searchMaxDays,
    httpInbound: {
      credentials: new InboundCredentials(options.db),
      bus: options.bus,
      logger: options.logger,
    },
    router,
  };
  const routes = createGatewayRoutes(routeDeps);
  if (options.consoleDir !== undefined) routes.use(createConsoleRoutes(options.consoleDir));
  const own = createOwnPortRoutes(routeDeps);
  // On its own port Jasmin's /ping is its HTTP interface's (text), not its REST interface's (JSON).
  own['jasmin-http'].use(jasminHttpPing());
  const meter = requestMeter(options.registry);
  const sendHot = hotSendRoute({
    send,
    caller,
    maxBodyBytes: options.maxBodyBytes,
    corsAllowedOrigins: options.corsAllowedOrigins,
    meter,
    logger: options.logger,
  });
  const answerers = createLegacyAnswerers(routeDeps);
  const legacyOptions = {
    corsAllowedOrigins: options.corsAllowedOrigins,
    meter,
    logger: options.logger,
  };
  const ownPortHotRoutes = {
    'jasmin-http': legacyHotRoute(answerers['jasmin-http'], legacyOptions),
    'kannel-sendsms': legacyHotRoute(answerers['kannel-sendsms'], legacyOptions),
  };
  // Clients of Jasmin and Kannel send with GET by the thousand, as REST clients POST /secure/send.
  const hotRoute = firstHotRoute(
    sendHot,
    ownPortHotRoutes['jasmin-http'],
    ownPortHotRoutes['kannel-sendsms'],
  );
  return {
    routes,
    ownPortRoutes: own,
    ownPortHotRoutes,
    hotRoute,
    store,
    sends,
    stopSteps: [
      ...sends.stopSteps,
      { name: 'idempotency key sweep', run: () => sweeper.stop() },
      { name: 'MT routes and price lists reload', run: stopRouting },
    ],
  };
}
