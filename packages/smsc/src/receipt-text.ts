import type { DeliveryReceipt, ReceiptState } from './smsc-connector';

const STAT_STATES: Record<string, ReceiptState> = {
  DELIVRD: 'delivered',
  EXPIRED: 'expired',
  DELETED: 'deleted',
  UNDELIV: 'undelivered',
  ACCEPTD: 'accepted',
  UNKNOWN: 'unknown',
  REJECTD: 'rejected',
  ENROUTE: 'enroute',
};

/**
 * A receipt's stat as a metric label: one of the states SMPP 3.4 defines, or `other`. The stat is
 * the SMSC's free text, and each distinct label value would be a new time series.
 */
export function receiptStatLabel(stat: string): string {
  return Object.hasOwn(STAT_STATES, stat) ? stat : 'other';
}

/** SMPP 3.4 message_state TLV values. */
const MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

/** A field of the receipt text, compiled once: a receipt comes with every message. */
const FIELDS = {
  id: /(?:^|\s)id:(\S*)/i,
  stat: /(?:^|\s)stat:(\S*)/i,
  err: /(?:^|\s)err:(\S*)/i,
  sub: /(?:^|\s)sub:(\S*)/i,
  dlvrd: /(?:^|\s)dlvrd:(\S*)/i,
} as const;

export type ParsedReceipt = Omit<DeliveryReceipt, 'smscId'> & { rawId: string };

/**
 * The receipt text of SMPP 3.4 Appendix B: `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…`.
 * TLVs (receipted_message_id, message_state) win over the text when present.
 */
export function parseReceipt(
  text: string,
  tlv: { receiptedMessageId?: string; messageState?: number } = {},
): ParsedReceipt | undefined {
  const field = (name: keyof typeof FIELDS): string => FIELDS[name].exec(text)?.[1] ?? '';
  const rawId = tlv.receiptedMessageId || field('id');
  if (!rawId) return undefined;
  const stat =
    (tlv.messageState !== undefined ? MESSAGE_STATES[tlv.messageState] : undefined) ??
    field('stat').toUpperCase();
  return {
    rawId,
    stat,
    state: STAT_STATES[stat] ?? 'unknown',
    err: field('err'),
    sub: field('sub'),
    dlvrd: field('dlvrd'),
    submitDate: /submit date:(\d+)/i.exec(text)?.[1] ?? '',
    doneDate: /done date:(\d+)/i.exec(text)?.[1] ?? '',
    text: /text:(.*)$/is.exec(text)?.[1] ?? '',
  };
}

function smppDate(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(date.getUTCFullYear() % 100)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}`;
}

/** Builds the receipt text an SMSC sends (used by the simulator). */
export function formatReceipt(r: {
  id: string;
  stat: string;
  err?: string;
  submitted: Date;
  done: Date;
  text: string;
}): string {
  const ok = r.stat === 'DELIVRD' ? '001' : '000';
  return `id:${r.id} sub:001 dlvrd:${ok} submit date:${smppDate(r.submitted)} done date:${smppDate(r.done)} stat:${r.stat} err:${r.err ?? '000'} text:${r.text.slice(0, 20)}`;
}
