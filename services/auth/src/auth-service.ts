import type { Router } from 'express';
import type { Registry } from 'prom-client';
import {
  compileProxyTrust,
  createLogger,
  PollingLoop,
  SecretBox,
  followAccountChanges,
  type Bus,
  type Consumer,
  type Db,
  type Logger,
} from '@smsgw/kit';
import { AccountAnnouncer } from './account-announcer';
import { AccountStore } from './account-store';
import { CredentialVerifier } from './credential-verifier';
import { KdfGate } from './kdf-gate';
import { LoginGuard } from './login-guard';
import { MemoryLoginThrottle, type LoginThrottle } from './login-throttle';
import { createAuthMetrics } from './metrics';
import { PasswordHasher } from './password-hasher';
import { RedisLoginThrottle } from './redis-login-throttle';
import { RedisFlags } from './redis-verified-credentials';
import { createAuthRoutes } from './routes';
import { ConsoleSessions, consoleSessionTimes, type SessionTimes } from '@smsgw/console-session';
import type { ConnectorAdminSettings } from './connector-admin-routes';
import { SenderRulesStore } from './sender-rules-store';
import { SmppBinds } from './smpp-binds';
import { TokenIssuer } from './token-issuer';
import { MemoryFlags, VerifiedCredentials } from './verified-credentials';

export interface AuthServiceOptions {
  db: Db;
  /** Account changes are broadcast on it and heard from it (other auth replicas, gateways). */
  bus: Bus;
  registry: Registry;
  logger?: Logger;
  jwtSecret: string;
  tokenTtlSeconds: number;
  adminToken: string;
  /** The token api-gateway presents to the internal credential check; unset in embedded mode. */
  internalToken?: string | undefined;
  maxBodyBytes: number;
  /** Unset: failed logins are counted in this process's memory. */
  redisUrl?: string | undefined;
  /**
   * Prefix of auth's keys in Redis: the bus namespace, as the dispatcher's keys have it, so two
   * deployments (or two test runs) on one Redis never count each other's failed logins.
   */
  redisPrefix?: string | undefined;
  failuresPerName: number;
  failuresPerAddress: number;
  loginWindowSeconds: number;
  kdfConcurrency: number;
  trustedProxies: readonly string[];
  /** The connector admin API's key and allow-list (CONNECTOR_SECRET_KEY, CONNECTOR_ALLOWED_HOSTS). */
  connectors: ConnectorAdminSettings;
  /** The longest range a search, an export or a statistics query may name (SEARCH_MAX_DAYS). */
  searchMaxDays: number;
  /** How long a web console session lasts unused, and at most (CONSOLE_SESSION_*). */
  consoleSessions: SessionTimes;
  /** scrypt N; lowered only by tests. */
  kdfCost?: number;
}

export interface AuthService {
  routes: Router;
  verifier: CredentialVerifier;
  /** The check of SMPP binds (the smpp-server asks it in-process in embedded mode). */
  smppBinds: SmppBinds;
  store: AccountStore;
  /** Follows account changes announced by any auth replica. */
  start(): Promise<void>;
  /** Stops following them and closes the shared counters' connection. */
  close(): Promise<void>;
}

/** How often ended console sessions are deleted. */
const SESSION_SWEEP_MS = 10 * 60_000;

/** Logins that may wait for the KDF (in each line), per check that may run: enough to smooth a burst, not a queue. */
const KDF_WAITING_PER_SLOT = 8;

/** Auth's settings from its environment (distributed and embedded mode alike). */
export function authSettings(config: {
  JWT_SECRET: string;
  TOKEN_TTL_SECONDS: number;
  ADMIN_TOKEN: string;
  INTERNAL_TOKEN?: string | undefined;
  MAX_BODY_BYTES: number;
  REDIS_URL?: string | undefined;
  BUS_NAMESPACE?: string | undefined;
  LOGIN_FAILURES_PER_NAME: number;
  LOGIN_FAILURES_PER_ADDRESS: number;
  LOGIN_WINDOW_SECONDS: number;
  KDF_CONCURRENCY: number;
  TRUSTED_PROXIES: string[];
  CONNECTOR_SECRET_KEY: string;
  CONNECTOR_ALLOWED_HOSTS: string[];
  SEARCH_MAX_DAYS: number;
  CONSOLE_SESSION_IDLE_MINUTES: number;
  CONSOLE_SESSION_MAX_HOURS: number;
}): Omit<AuthServiceOptions, 'db' | 'bus' | 'registry' | 'logger'> {
  return {
    jwtSecret: config.JWT_SECRET,
    tokenTtlSeconds: config.TOKEN_TTL_SECONDS,
    adminToken: config.ADMIN_TOKEN,
    internalToken: config.INTERNAL_TOKEN,
    maxBodyBytes: config.MAX_BODY_BYTES,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.BUS_NAMESPACE,
    failuresPerName: config.LOGIN_FAILURES_PER_NAME,
    failuresPerAddress: config.LOGIN_FAILURES_PER_ADDRESS,
    loginWindowSeconds: config.LOGIN_WINDOW_SECONDS,
    kdfConcurrency: config.KDF_CONCURRENCY,
    trustedProxies: config.TRUSTED_PROXIES,
    connectors: {
      secrets: new SecretBox(config.CONNECTOR_SECRET_KEY),
      allowedHosts: config.CONNECTOR_ALLOWED_HOSTS,
    },
    searchMaxDays: config.SEARCH_MAX_DAYS,
    consoleSessions: consoleSessionTimes(config),
  };
}

export function createAuthService(options: AuthServiceOptions): AuthService {
  const store = new AccountStore(options.db);
  const hasher = new PasswordHasher(options.kdfCost);
  const tokens = new TokenIssuer(options.jwtSecret, options.tokenTtlSeconds);
  const windowMs = options.loginWindowSeconds * 1000;
  const prefix = options.redisPrefix ?? 'smsgw';
  const throttle: LoginThrottle = options.redisUrl
    ? new RedisLoginThrottle(options.redisUrl, windowMs, options.logger, `${prefix}:login`)
    : new MemoryLoginThrottle(windowMs);
  // Shared like the counters: a replica restarted or rolled out still knows who verified.
  const verified = new VerifiedCredentials(
    options.redisUrl
      ? new RedisFlags(options.redisUrl, options.logger, `${prefix}:login:verified`)
      : new MemoryFlags(),
    options.jwtSecret,
  );
  const guard = new LoginGuard(
    throttle,
    verified,
    new KdfGate(options.kdfConcurrency, options.kdfConcurrency * KDF_WAITING_PER_SLOT),
    {
      failuresPerName: options.failuresPerName,
      failuresPerAddress: options.failuresPerAddress,
      windowSeconds: options.loginWindowSeconds,
    },
    createAuthMetrics(options.registry),
  );
  const verifier = new CredentialVerifier(store, hasher, tokens, guard);
  const announcer = new AccountAnnouncer(verifier, options.bus, options.logger);
  const smppBinds = new SmppBinds(options.db, hasher, guard);
  const sessions = new ConsoleSessions(options.db, options.consoleSessions);
  const routes = createAuthRoutes({
    sessions,
    store,
    senders: new SenderRulesStore(options.db),
    db: options.db,
    hasher,
    tokens,
    verifier,
    guard,
    announcer,
    adminToken: options.adminToken,
    internalToken: options.internalToken,
    smppBinds,
    maxBodyBytes: options.maxBodyBytes,
    trustedProxies: compileProxyTrust(options.trustedProxies),
    connectors: options.connectors,
    searchMaxDays: options.searchMaxDays,
    logger: options.logger,
  });
  let following: Consumer | undefined;
  // Ended sessions are refused as they are found; their rows are deleted in the background.
  const sessionSweep = new PollingLoop(
    async () => {
      await sessions.sweep();
    },
    options.logger ?? createLogger('auth', 'silent'),
    'console session sweep',
  );
  return {
    routes,
    verifier,
    smppBinds,
    store,
    async start() {
      following = await followAccountChanges(options.bus, [verifier], options.logger);
      sessionSweep.start(SESSION_SWEEP_MS);
    },
    async close() {
      await sessionSweep.stop();
      await following?.cancel();
      await throttle.close();
      await verified.close();
    },
  };
}
