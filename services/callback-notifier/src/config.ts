import { busEnv, envVars, serviceEnv } from '@smsgw/kit';

/**
 * The environment variables the callback-notifier reads (docs/configuration.md); tests check
 * deployments provide them.
 */
export const notifierConfigShape = {
  PORT: envVars.PORT.default(8084),
  ...serviceEnv,
  ...busEnv,
  CALLBACK_ALLOWED_HOSTS: envVars.CALLBACK_ALLOWED_HOSTS,
  CALLBACK_MAX_ATTEMPTS: envVars.CALLBACK_MAX_ATTEMPTS,
  CALLBACK_RETRY_BASE_MS: envVars.CALLBACK_RETRY_BASE_MS,
  CALLBACK_TIMEOUT_MS: envVars.CALLBACK_TIMEOUT_MS,
  CALLBACK_HOST_CONCURRENCY: envVars.CALLBACK_HOST_CONCURRENCY,
  OPTOUT_KEYWORDS: envVars.OPTOUT_KEYWORDS,
  OPTIN_KEYWORDS: envVars.OPTIN_KEYWORDS,
  // Replies of Kannel sms-service routes are sent as the gateway sends any message.
  MAX_PARTS: envVars.MAX_PARTS,
  UNLISTED_SENDERS: envVars.UNLISTED_SENDERS,
  KANNEL_REPLIES_PER_MINUTE: envVars.KANNEL_REPLIES_PER_MINUTE,
};
