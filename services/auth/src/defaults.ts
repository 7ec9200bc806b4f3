/** Auth's built-in tunings, next to the settings it reads from its environment (config.ts). */
export const authDefaults = {
  /** How long a successful Basic check is remembered, so each request does not pay the KDF. */
  basicCacheMs: 60_000,
  /** How long an application's liveness is remembered; bounds how late a revocation takes effect. */
  applicationCacheMs: 5_000,
  /** Entries each cache keeps; beyond this the least recently used are forgotten. */
  cacheEntries: 10_000,
} as const;
