import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/**
 * The environment variables the smpp-server reads (docs/configuration.md); tests check
 * deployments provide them. PORT is its HTTP port (/healthz, /readyz, /metrics); customers bind
 * to SMPP_SERVER_PORT (and SMPP_SERVER_TLS_PORT).
 */
export const smppServerConfigShape = {
  PORT: envVars.PORT.default(8085),
  ...serviceEnv,
  ...busEnv,
  AUTH_URL: envVars.AUTH_URL,
  INTERNAL_TOKEN: envVars.INTERNAL_TOKEN,
  REDIS_URL: envVars.REDIS_URL,
  MAX_PARTS: envVars.MAX_PARTS,
  UNLISTED_SENDERS: envVars.UNLISTED_SENDERS,
  SMPP_SERVER_PORT: envVars.SMPP_SERVER_PORT,
  SMPP_SERVER_TLS_PORT: envVars.SMPP_SERVER_TLS_PORT,
  SMPP_SERVER_TLS_CERT: envVars.SMPP_SERVER_TLS_CERT,
  SMPP_SERVER_TLS_KEY: envVars.SMPP_SERVER_TLS_KEY,
  SMPP_BIND_TIMEOUT_MS: envVars.SMPP_BIND_TIMEOUT_MS,
  SMPP_IDLE_TIMEOUT_MS: envVars.SMPP_IDLE_TIMEOUT_MS,
  SMPP_ENQUIRE_LINK_MS: envVars.SMPP_ENQUIRE_LINK_MS,
  SMPP_WINDOW: envVars.SMPP_WINDOW,
  SMPP_RECEIPT_EXPIRY_HOURS: envVars.SMPP_RECEIPT_EXPIRY_HOURS,
};
