import { envVars } from '@smsgw/kit';

/**
 * Embedded mode reads the union of the services' variables; the secrets are optional here (those
 * not given are generated, local-secrets.ts), and INTERNAL_TOKEN is not read: the gateway asks auth
 * in-process, so there is no internal endpoint.
 */
export const standaloneConfigShape = {
  PORT: envVars.PORT.default(8080),
  // A laptop default: reachable from this machine only. Set HOST=0.0.0.0 to expose it.
  HOST: envVars.HOST.default('127.0.0.1'),
  LOG_LEVEL: envVars.LOG_LEVEL,
  DATA_DIR: envVars.DATA_DIR,
  DATABASE_URL: envVars.DATABASE_URL,
  AMQP_URL: envVars.AMQP_URL,
  REDIS_URL: envVars.REDIS_URL,
  SMART_QOS: envVars.SMART_QOS,
  BUS_NAMESPACE: envVars.BUS_NAMESPACE,
  SMSC_URL: envVars.SMSC_URL,
  ADMIN_TOKEN: envVars.ADMIN_TOKEN.optional(),
  JWT_SECRET: envVars.JWT_SECRET.optional(),
  SMSGW_INSECURE_DEV_SECRETS: envVars.SMSGW_INSECURE_DEV_SECRETS,
  TOKEN_TTL_SECONDS: envVars.TOKEN_TTL_SECONDS,
  HTTP_THROUGHPUT_PER_WORKER: envVars.HTTP_THROUGHPUT_PER_WORKER,
  CALLBACK_ALLOWED_HOSTS: envVars.CALLBACK_ALLOWED_HOSTS,
  CALLBACK_MAX_ATTEMPTS: envVars.CALLBACK_MAX_ATTEMPTS,
  CALLBACK_RETRY_BASE_MS: envVars.CALLBACK_RETRY_BASE_MS,
  CALLBACK_TIMEOUT_MS: envVars.CALLBACK_TIMEOUT_MS,
  CALLBACK_HOST_CONCURRENCY: envVars.CALLBACK_HOST_CONCURRENCY,
  MAX_PARTS: envVars.MAX_PARTS,
  MAX_BODY_BYTES: envVars.MAX_BODY_BYTES,
  MAX_BATCH_BYTES: envVars.MAX_BATCH_BYTES,
  MAX_BATCH_RECIPIENTS: envVars.MAX_BATCH_RECIPIENTS,
  MAX_SCHEDULE_DAYS: envVars.MAX_SCHEDULE_DAYS,
  UNLISTED_SENDERS: envVars.UNLISTED_SENDERS,
  LARGE_BATCH_BYTES: envVars.LARGE_BATCH_BYTES,
  TZ: envVars.TZ,
  SWEEP_INTERVAL_MS: envVars.SWEEP_INTERVAL_MS,
  SUBMIT_STALE_MS: envVars.SUBMIT_STALE_MS,
  MAX_SUBMIT_ATTEMPTS: envVars.MAX_SUBMIT_ATTEMPTS,
  SHUTDOWN_TIMEOUT_MS: envVars.SHUTDOWN_TIMEOUT_MS,
};
