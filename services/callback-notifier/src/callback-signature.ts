import { createHmac } from 'node:crypto';

/** What a callback's signature covers besides its timestamp. */
export interface SignedParts {
  /** The request's method, as sent (GET or POST). */
  method: string;
  /** The request target as sent: the URL's path and query string (`/dlr?tag=kept&id=…`). */
  target: string;
  /** The callback's id (X-Smsgw-Callback-Id), the same on every attempt. */
  callbackId: string;
  /** The raw body; empty for a GET. */
  body: string;
}

/**
 * The string each v2 signs: timestamp, method, target, callback id and body, one per line. With
 * the method and target signed, a captured callback cannot be replayed to another path or
 * method of the receiver; with the id, it cannot pass as another callback.
 */
export function signatureBase(parts: SignedParts, unixSeconds: number): string {
  return [unixSeconds, parts.method, parts.target, parts.callbackId, parts.body].join('\n');
}

/**
 * The value of X-Smsgw-Signature: `t=<unix seconds>,v2=<hex>` with one v2 per secret (the current
 * one, and the previous one during a rotation's grace period). Each v2 is HMAC-SHA256, keyed with
 * the secret, over signatureBase. The timestamp lets a receiver refuse a replayed request.
 */
export function callbackSignature(
  secrets: readonly string[],
  parts: SignedParts,
  unixSeconds: number,
): string {
  const signed = signatureBase(parts, unixSeconds);
  return [
    `t=${unixSeconds}`,
    ...secrets.map((secret) => `v2=${createHmac('sha256', secret).update(signed).digest('hex')}`),
  ].join(',');
}
