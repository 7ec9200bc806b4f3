import { z } from 'zod';
import { KANNEL_DLR } from './message';

/**
 * How a message's reports reach its client: `rest` a request of the gateway's form to the URL,
 * `jasmin` Jasmin's HTTP interface's (its receiver answers `ACK/Jasmin`), `kannel` a GET of the
 * URL as a template, `smpp` a deliver_sm to the account's SMPP sessions (no URL).
 */
export const REPORT_STYLES = ['rest', 'jasmin', 'kannel', 'smpp'] as const;
export type ReportStyle = (typeof REPORT_STYLES)[number];

/**
 * The events a report is wished for, as the bits of Kannel's dlr-mask (gw/dlr.h), which name each
 * outcome apart: the SMSC took the message (8) or refused it (16), the handset receipt says
 * delivered (1) or another final state (2). The gateway reports final receipts only, so Kannel's
 * "buffered" (4) is never among them.
 */
export const REPORT_EVENTS = {
  smscAccepted: KANNEL_DLR.smscSuccess,
  smscRefused: KANNEL_DLR.smscFail,
  delivered: KANNEL_DLR.success,
  notDelivered: KANNEL_DLR.fail,
} as const;

const SMSC_EVENTS = REPORT_EVENTS.smscAccepted | REPORT_EVENTS.smscRefused;
const HANDSET_EVENTS = REPORT_EVENTS.delivered | REPORT_EVENTS.notDelivered;
const REPORTED_EVENTS = SMSC_EVENTS | HANDSET_EVENTS;

/** Where, how and for which events a message's client wants reports: stored with the message. */
export const ReportWishSchema = z.object({
  /** The events (REPORT_EVENTS bits); never 0 in a wish. */
  mask: z.number().int(),
  /** The URL reports go to; null for `smpp`. */
  url: z.string().nullable(),
  method: z.enum(['GET', 'POST']).nullable(),
  style: z.enum(REPORT_STYLES),
});
export type ReportWish = z.infer<typeof ReportWishSchema>;

/**
 * What an entry point's request says of reports by the time it is accepted: decideReport's
 * fields (Jasmin's dlr, dlr-url, dlr-level, dlr-method), the interface's way of reporting
 * (InterfaceReport: Jasmin's HTTP interface, Kannel's sendsms with its dlr-mask) and SMPP's
 * registered_delivery (`smpp_receipt`).
 */
export interface ReportAsk {
  dlr?: string | undefined;
  dlr_url?: string | undefined;
  dlr_level?: number | undefined;
  dlr_method?: 'GET' | 'POST' | undefined;
  dlr_style?: 'jasmin' | 'kannel' | undefined;
  dlr_mask?: number | undefined;
  smpp_receipt?: string | undefined;
}

/** The request's fields that ReportAsk names: they are the wish's, not the message's params. */
export const REPORT_ASK_FIELDS = [
  'dlr',
  'dlr_url',
  'dlr_level',
  'dlr_method',
  'dlr_style',
  'dlr_mask',
  'smpp_receipt',
] as const satisfies readonly (keyof ReportAsk)[];

/**
 * Jasmin's levels as events (Jasmin's HTTP API documentation: "1: SMS-C level, 2: Terminal level,
 * 3: Both"; level 1 reports the SMSC's answer whether it took the message or not).
 */
const LEVEL_EVENTS: Record<number, number> = {
  1: SMSC_EVENTS,
  2: HANDSET_EVENTS,
  3: REPORTED_EVENTS,
};

/**
 * The report wish of a message, decided once at acceptance from its entry point's parameters
 * (ReportAsk); null when nobody is to be reported to. Everything after acceptance trusts it: the
 * store writes a report event only for an event of the mask, and the notifier sends every one it
 * gets. Jasmin (send.py): a report goes to `dlr-url` at `dlr-level` (1 unless given), by
 * `dlr-method`; Kannel (dlr.c dlr_find): to `dlr-url` by GET for the events `dlr-mask` names;
 * SMPP: the handset receipt, to the account's sessions.
 */
export function decideReportWish(ask: ReportAsk): ReportWish | null {
  if (ask.smpp_receipt === 'yes')
    return { mask: HANDSET_EVENTS, url: null, method: null, style: 'smpp' };
  if (ask.dlr !== 'yes' || ask.dlr_url === undefined) return null;
  if (ask.dlr_style === 'kannel') {
    const mask = (ask.dlr_mask ?? 0) < 0 ? 0 : (ask.dlr_mask ?? 0) & REPORTED_EVENTS;
    return mask === 0 ? null : { mask, url: ask.dlr_url, method: 'GET', style: 'kannel' };
  }
  const mask = LEVEL_EVENTS[ask.dlr_level ?? 1];
  if (mask === undefined) return null;
  return {
    mask,
    url: ask.dlr_url,
    method: ask.dlr_method ?? 'POST',
    style: ask.dlr_style === 'jasmin' ? 'jasmin' : 'rest',
  };
}

/** A message's params without the fields its report wish was decided from (REPORT_ASK_FIELDS). */
export function withoutReportAsk<T extends object>(params: T): Omit<T, keyof ReportAsk> {
  const rest = { ...params } as Record<string, unknown>;
  for (const field of REPORT_ASK_FIELDS) delete rest[field];
  return rest as Omit<T, keyof ReportAsk>;
}
