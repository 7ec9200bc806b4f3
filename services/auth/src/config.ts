import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/** The environment variables auth reads (DESIGN.md 4.4); tests check deployments provide them. */
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
};
