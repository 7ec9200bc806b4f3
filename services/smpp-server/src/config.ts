import { busEnv, envVars, serviceEnv, smppServerEnv } from '@smsgw/kit';

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
  ...smppServerEnv,
};
