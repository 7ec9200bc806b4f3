import { busEnv, envVars, serviceEnv } from '@smsgw/kit';
import { ownPortsEnv } from './edge/own-ports';

/**
 * The environment variables api-gateway reads (docs/configuration.md); tests check deployments
 * provide them.
 */
export const gatewayConfigShape = {
  PORT: envVars.PORT.default(8080),
  ...serviceEnv,
  ...busEnv,
  AUTH_URL: envVars.AUTH_URL,
  /** Presented to auth's internal credential check (x-internal-token). */
  INTERNAL_TOKEN: envVars.INTERNAL_TOKEN,
  MAX_PARTS: envVars.MAX_PARTS,
  MAX_BODY_BYTES: envVars.MAX_BODY_BYTES,
  MAX_BATCH_BYTES: envVars.MAX_BATCH_BYTES,
  MAX_BATCH_RECIPIENTS: envVars.MAX_BATCH_RECIPIENTS,
  MAX_SCHEDULE_DAYS: envVars.MAX_SCHEDULE_DAYS,
  IDEMPOTENCY_WINDOW_SECONDS: envVars.IDEMPOTENCY_WINDOW_SECONDS,
  UNLISTED_SENDERS: envVars.UNLISTED_SENDERS,
  SHOW_ROUTES_TO_CUSTOMERS: envVars.SHOW_ROUTES_TO_CUSTOMERS,
  SEARCH_MAX_DAYS: envVars.SEARCH_MAX_DAYS,
  CONSOLE_DIR: envVars.CONSOLE_DIR,
  CONSOLE_SESSION_IDLE_MINUTES: envVars.CONSOLE_SESSION_IDLE_MINUTES,
  CONSOLE_SESSION_MAX_HOURS: envVars.CONSOLE_SESSION_MAX_HOURS,
  LARGE_BATCH_BYTES: envVars.LARGE_BATCH_BYTES,
  CORS_ALLOWED_ORIGINS: envVars.CORS_ALLOWED_ORIGINS,
  KANNEL_SMPP_TLVS: envVars.KANNEL_SMPP_TLVS,
  TRUSTED_PROXIES: envVars.TRUSTED_PROXIES,
  /** Private callback hosts customers may name; others are refused at acceptance. */
  CALLBACK_ALLOWED_HOSTS: envVars.CALLBACK_ALLOWED_HOSTS,
  ...ownPortsEnv,
  /** `schedule_at` without a zone is read in this time zone (batch-plan.ts). */
  TZ: envVars.TZ,
};
