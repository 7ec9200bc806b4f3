import { createHmac } from 'node:crypto';

/**
 * The value of X-Smsgw-Signature: `t=<unix seconds>,v1=<hex>` with one v1 per secret (the current
 * one, and the previous one during a rotation's grace period). Each v1 is HMAC-SHA256, keyed with
 * the secret, over `<t>.<payload>`; the payload is what carries the parameters: the body of a POST,
 * the query string (without `?`) of a GET. The timestamp lets a receiver refuse a replayed request.
 */
export function callbackSignature(
  secrets: readonly string[],
  payload: string,
  unixSeconds: number,
): string {
  const signed = `${unixSeconds}.${payload}`;
  return [
    `t=${unixSeconds}`,
    ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`),
  ].join(',');
}
