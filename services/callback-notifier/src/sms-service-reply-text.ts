import { gsm7Septets } from '@smsgw/smsc';
import type { CallbackOutcome } from './callback-sender';

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
