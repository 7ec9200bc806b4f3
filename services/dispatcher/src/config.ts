import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/**
 * The environment variables the dispatcher reads (docs/configuration.md); tests check deployments
 * provide them.
 */
export const dispatcherConfigShape = {
  PORT: envVars.PORT.default(8083),
  ...serviceEnv,
  ...busEnv,
  REDIS_URL: envVars.REDIS_URL,
  SMSC_URL: envVars.SMSC_URL,
  SMSC_BINDS: envVars.SMSC_BINDS,
  CONNECTOR_ALLOWED_HOSTS: envVars.CONNECTOR_ALLOWED_HOSTS,
  SMSC_CA_DIR: envVars.SMSC_CA_DIR,
  CONNECTOR_SECRET_KEY: envVars.CONNECTOR_SECRET_KEY,
  CONNECTOR_SECRETS_RESEAL: envVars.CONNECTOR_SECRETS_RESEAL,
  HTTP_THROUGHPUT_PER_WORKER: envVars.HTTP_THROUGHPUT_PER_WORKER,
  SMART_QOS: envVars.SMART_QOS,
  SWEEP_INTERVAL_MS: envVars.SWEEP_INTERVAL_MS,
  SUBMIT_STALE_MS: envVars.SUBMIT_STALE_MS,
  MAX_SUBMIT_ATTEMPTS: envVars.MAX_SUBMIT_ATTEMPTS,
  INBOUND_PART_TIMEOUT_MS: envVars.INBOUND_PART_TIMEOUT_MS,
};
