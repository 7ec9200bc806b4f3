import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/**
 * The environment variables the batch-scheduler reads (docs/configuration.md); tests check
 * deployments provide them.
 */
export const schedulerConfigShape = {
  PORT: envVars.PORT.default(8082),
  MESSAGE_RETENTION_DAYS: envVars.MESSAGE_RETENTION_DAYS,
  CDR_RETENTION_DAYS: envVars.CDR_RETENTION_DAYS,
  STATS_ROLLUP_SECONDS: envVars.STATS_ROLLUP_SECONDS,
  STATS_LAG_SECONDS: envVars.STATS_LAG_SECONDS,
  BATCH_STALL_SECONDS: envVars.BATCH_STALL_SECONDS,
  MESSAGE_OVERDUE_SECONDS: envVars.MESSAGE_OVERDUE_SECONDS,
  ...serviceEnv,
  ...busEnv,
};
