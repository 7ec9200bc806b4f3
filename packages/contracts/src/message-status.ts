import { z } from 'zod';
import { MESSAGE_STATES } from './states';

/** GET /secure/messages/{id} */
export const MessageStatusSchema = z.object({
  data: z.object({
    id: z.string(),
    state: z.enum(MESSAGE_STATES),
    to: z.string(),
    from: z.string().nullable(),
    batchId: z.string().nullable(),
    smscId: z.string().nullable(),
    segments: z.number().int(),
    coding: z.number().int(),
    cost: z.string(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    /** Set when a callback or delivery report for this message was given up. */
    callbackError: z.string().nullable(),
    /**
     * The MT route that took it at acceptance (null: the gateway had no routes). This and the two
     * below are shown only where the operator sets SHOW_ROUTES_TO_CUSTOMERS.
     */
    route: z.string().nullable().optional(),
    /** The connector whose SMSC accepted it; null until one did. */
    connector: z.string().nullable().optional(),
    /** Every connector it was offered to, in order (a failover route may list several). */
    connectorTrail: z.array(z.string()).optional(),
    createdAt: z.string(),
    submittedAt: z.string().nullable(),
    updatedAt: z.string(),
  }),
});
export type MessageStatus = z.infer<typeof MessageStatusSchema>;
