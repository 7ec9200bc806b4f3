/**
 * What an admin token may do. ADMIN_TOKEN holds every scope; a token made through the admin API
 * holds those it was given, and every admin route declares the one it needs.
 */
export const ADMIN_SCOPES = [
  'accounts:read',
  'accounts:write',
  'credit',
  'senders',
  'inbound',
  'connectors',
  'routes',
  'audit:read',
  'tokens',
  /** Reading batches across accounts. */
  'batches:read',
  /** Searching every account's messages, their stories, CDRs and statistics; the text masked. */
  'messages:read',
  /** Seeing the text of the messages found (with messages:read). */
  'messages:content',
] as const;
