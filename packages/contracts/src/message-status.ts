import { z } from 'zod';
import { MESSAGE_STATES } from './states';

/**
 * The error of a message whose submit_sm was written and never answered (or whose dispatcher
 * stopped before recording the answer): the SMSC may have it, so it is never sent again nor
 * refunded (docs/reliability.md § What an unknown outcome costs).
 */
export const UNKNOWN_OUTCOME_ERROR = 'SUBMIT_OUTCOME_UNKNOWN';

/**
 * What is known of a message's fate: `pending` until it ends, `known` once it ended with a state
 * that says what happened, `unknown` when it failed with UNKNOWN_OUTCOME_ERROR.
 */
export const MESSAGE_OUTCOMES = ['pending', 'known', 'unknown'] as const;
export type MessageOutcome = (typeof MESSAGE_OUTCOMES)[number];

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
    /** `unknown`: the SMSC may or may not have it; it is charged and never sent again. */
    outcome: z.enum(MESSAGE_OUTCOMES),
    /** Whether its cost stands: false once it was refunded (or cancelled with a refund). */
    charged: z.boolean(),
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
