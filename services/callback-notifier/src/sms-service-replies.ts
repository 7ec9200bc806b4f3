import type { Principal } from '@smsgw/contracts';
import type { Db, Logger } from '@smsgw/kit';
import { gsm7Septets } from '@smsgw/smsc';
import { findInboundMessage, listMoRoutes } from '@smsgw/store';
import type { CallbackOutcome } from './callback-sender';

/** Sends one MT message for an account through /secure/send's acceptance (credit, rules, routing). */
export type ReplyAcceptor = (principal: Principal, body: unknown) => Promise<{ id: string }>;

/**
 * smsbox.c's default answers: `reply-couldnotfetch`, `reply-couldnotrepresent` and
 * `reply-emptymessage` of its smsbox group when none is configured.
 */
export const KANNEL_REPLIES = {
  couldNotFetch: 'Could not fetch content, sorry.',
  couldNotRepresent: 'Result could not be represented as an SMS message.',
  empty: '<Empty reply from service provider>',
} as const;

/** One SMS without concatenation: what a GSM 03.38 text, or else a UCS-2 text, holds. */
const GSM7_SEPTETS = 160;
const UCS2_UNITS = 70;

/**
 * The reply cut to one message, as an sms-service's default `max-messages = 1` with
 * `concatenation` off sends it (smsbox.c send_message: "truncated reply").
 */
export function oneSms(text: string): string {
  let septets = 0;
  let gsm = '';
  for (const ch of text) {
    const s = gsm7Septets(ch);
    if (!s) {
      // Not GSM 03.38: the whole reply goes in UCS-2, cut at a character, never inside a pair.
      let out = '';
      for (const c of text) {
        if (out.length + c.length > UCS2_UNITS) break;
        out += c;
      }
      return out;
    }
    if (septets + s.length > GSM7_SEPTETS) return gsm;
    septets += s.length;
    gsm += ch;
  }
  return gsm;
}

/** html_to_sms as smsbox.c applies it to text/html answers: the text without tags, blanks joined. */
function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The text an sms-service's answer sends back (smsbox.c url_result_thread): a 200 or 202 with a
 * text/plain body as it is, text/html or WML as its text, another type as "could not represent";
 * any other answer, or none, as "could not fetch".
 */
export function serviceReplyText(outcome: CallbackOutcome): string {
  if (!outcome.ok || (outcome.status !== 200 && outcome.status !== 202))
    return KANNEL_REPLIES.couldNotFetch;
  const type = (outcome.contentType ?? '').toLowerCase();
  const body = outcome.body ?? '';
  if (type === 'text/plain') return body;
  if (type === 'text/html' || type === 'text/vnd.wap.wml') return htmlToText(body);
  return KANNEL_REPLIES.couldNotRepresent;
}

/**
 * Sends an sms-service's answer back to the subscriber as Kannel does by default: from the number
 * the message was sent to, to its sender, one SMS at most, an empty answer as Kannel's empty
 * message, from the account of the route that took it and charged as any message of that account.
 * A route whose `kannel_reply` is off sends nothing.
 */
export class SmsServiceReplies {
  constructor(
    private readonly db: Db,
    private readonly accept: ReplyAcceptor,
    private readonly logger: Logger,
  ) {}

  /** After the service was called (or could not be): the reply's id, or undefined for none. */
  async answer(inboundId: string, outcome: CallbackOutcome): Promise<string | undefined> {
    const message = await findInboundMessage(this.db, inboundId);
    if (!message?.mo_route || !message.account_id) return undefined;
    const route = (await listMoRoutes(this.db)).find((r) => r.name === message.mo_route);
    if (!route || route.webhook_format !== 'kannel' || !route.kannel_reply) return undefined;
    const text = serviceReplyText(outcome);
    const content = oneSms(text.length === 0 ? KANNEL_REPLIES.empty : text);
    try {
      const reply = await this.accept(
        { accountId: message.account_id, username: route.username, via: 'basic' },
        { to: message.from_addr, from: message.to_addr, content },
      );
      this.logger.info(
        { inboundId, replyId: reply.id, route: route.name },
        'sms-service answer sent back as a reply',
      );
      return reply.id;
    } catch (err) {
      // Refused like any message of the account (credit, sender rules, an opted-out number).
      this.logger.warn({ err, inboundId, route: route.name }, 'sms-service reply not sent');
      return undefined;
    }
  }
}
