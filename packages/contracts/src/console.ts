import { z } from 'zod';
import { ADMIN_SCOPES } from './scopes';

/** Where the web console is served, and where its sessions are made and ended. */
export const CONSOLE_PATH = '/console/';
export const CONSOLE_SESSION_PATH = '/console/v1/session';

/**
 * A console login: a customer by the account's username and password (the login limits of the
 * API apply), or an operator by an admin token. Bounded, as every field at the edge is.
 */
export const ConsoleLoginSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('customer'),
    username: z.string().min(1).max(64),
    password: z.string().min(1).max(256),
  }),
  z.strictObject({ kind: z.literal('operator'), token: z.string().min(1).max(256) }),
]);
export type ConsoleLogin = z.output<typeof ConsoleLoginSchema>;

/** Who a console session is, and the token its state-changing requests carry (X-CSRF-Token). */
export const ConsoleSessionInfoSchema = z.object({
  kind: z.enum(['customer', 'operator']),
  /** The customer's username, or the admin token's name (ADMIN_TOKEN for the bootstrap token). */
  name: z.string(),
  /** An operator's scopes; empty for a customer. */
  scopes: z.array(z.enum(ADMIN_SCOPES)),
  csrfToken: z.string(),
  expiresAt: z.string(),
});
export type ConsoleSessionInfo = z.infer<typeof ConsoleSessionInfoSchema>;
