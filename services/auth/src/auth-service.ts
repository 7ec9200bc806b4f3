import type { Router } from 'express';
import type { Db } from '@smsgw/kit';
import { AccountStore } from './account-store';
import { CredentialVerifier } from './credential-verifier';
import { PasswordHasher } from './password-hasher';
import { createAuthRoutes } from './routes';
import { SenderRulesStore } from './sender-rules-store';
import { TokenIssuer } from './token-issuer';

export interface AuthServiceOptions {
  db: Db;
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
}

/** Auth's settings from its environment (distributed and embedded mode alike). */
export function authSettings(config: {
  JWT_SECRET: string;
  TOKEN_TTL_SECONDS: number;
  ADMIN_TOKEN: string;
  INTERNAL_TOKEN?: string | undefined;
  MAX_BODY_BYTES: number;
}): Omit<AuthServiceOptions, 'db'> {
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
  const routes = createAuthRoutes({
    store,
    senders: new SenderRulesStore(options.db),
    hasher,
    tokens,
    verifier,
    adminToken: options.adminToken,
    internalToken: options.internalToken,
    maxBodyBytes: options.maxBodyBytes,
  });
  return { routes, verifier, store };
}
