import type { Router } from 'express';
import { followAccountChanges, type Bus, type Consumer, type Db, type Logger } from '@smsgw/kit';
import { AccountAnnouncer } from './account-announcer';
import { AccountStore } from './account-store';
import { CredentialVerifier } from './credential-verifier';
import { PasswordHasher } from './password-hasher';
import { createAuthRoutes } from './routes';
import { TokenIssuer } from './token-issuer';

export interface AuthServiceOptions {
  db: Db;
  /** Account changes are broadcast on it and heard from it (other auth replicas, gateways). */
  bus: Bus;
  logger: Logger;
  jwtSecret: string;
  tokenTtlSeconds: number;
  adminToken: string;
  /** The token api-gateway presents to the internal credential check; unset in embedded mode. */
  internalToken?: string | undefined;
  maxBodyBytes: number;
  /** scrypt N; lowered only by tests. */
  kdfCost?: number;
}

export interface AuthService {
  routes: Router;
  verifier: CredentialVerifier;
  store: AccountStore;
  /** Follows account changes announced by any auth replica. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Auth's settings from its environment (distributed and embedded mode alike). */
export function authSettings(config: {
  JWT_SECRET: string;
  TOKEN_TTL_SECONDS: number;
  ADMIN_TOKEN: string;
  INTERNAL_TOKEN?: string | undefined;
  MAX_BODY_BYTES: number;
}): Omit<AuthServiceOptions, 'db' | 'bus' | 'logger'> {
  return {
    jwtSecret: config.JWT_SECRET,
    tokenTtlSeconds: config.TOKEN_TTL_SECONDS,
    adminToken: config.ADMIN_TOKEN,
    internalToken: config.INTERNAL_TOKEN,
    maxBodyBytes: config.MAX_BODY_BYTES,
  };
}

export function createAuthService(options: AuthServiceOptions): AuthService {
  const store = new AccountStore(options.db);
  const hasher = new PasswordHasher(options.kdfCost);
  const tokens = new TokenIssuer(options.jwtSecret, options.tokenTtlSeconds);
  const verifier = new CredentialVerifier(store, hasher, tokens);
  const announcer = new AccountAnnouncer(verifier, options.bus, options.logger);
  const routes = createAuthRoutes({
    store,
    hasher,
    tokens,
    verifier,
    announcer,
    adminToken: options.adminToken,
    internalToken: options.internalToken,
    maxBodyBytes: options.maxBodyBytes,
  });
  let following: Consumer | undefined;
  return {
    routes,
    verifier,
    store,
    async start() {
      following = await followAccountChanges(options.bus, [verifier], options.logger);
    },
    async stop() {
      await following?.cancel();
    },
  };
}
