import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/**
 * The environment variables auth reads (docs/configuration.md); tests check deployments provide
 * them.
 */
export const authConfigShape = {
  PORT: envVars.PORT.default(8081),
  ...serviceEnv,
  /** Account changes are broadcast to the other replicas and the gateways. */
  ...busEnv,
  JWT_SECRET: envVars.JWT_SECRET,
  TOKEN_TTL_SECONDS: envVars.TOKEN_TTL_SECONDS,
  ADMIN_TOKEN: envVars.ADMIN_TOKEN,
  INTERNAL_TOKEN: envVars.INTERNAL_TOKEN,
  MAX_BODY_BYTES: envVars.MAX_BODY_BYTES,
  REDIS_URL: envVars.REDIS_URL,
  LOGIN_FAILURES_PER_NAME: envVars.LOGIN_FAILURES_PER_NAME,
  LOGIN_FAILURES_PER_ADDRESS: envVars.LOGIN_FAILURES_PER_ADDRESS,
  LOGIN_WINDOW_SECONDS: envVars.LOGIN_WINDOW_SECONDS,
  KDF_CONCURRENCY: envVars.KDF_CONCURRENCY,
  TRUSTED_PROXIES: envVars.TRUSTED_PROXIES,
  CONNECTOR_SECRET_KEY: envVars.CONNECTOR_SECRET_KEY,
  CONNECTOR_ALLOWED_HOSTS: envVars.CONNECTOR_ALLOWED_HOSTS,
  SEARCH_MAX_DAYS: envVars.SEARCH_MAX_DAYS,
  CONSOLE_DIR: envVars.CONSOLE_DIR,
  CONSOLE_SESSION_IDLE_MINUTES: envVars.CONSOLE_SESSION_IDLE_MINUTES,
  CONSOLE_SESSION_MAX_HOURS: envVars.CONSOLE_SESSION_MAX_HOURS,
};
