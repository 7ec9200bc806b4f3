import { ADMIN_TOKEN, type Services } from './cluster';
import { SEND_BODY } from './http-load';

/** BENCH_PRICE_ROWS: the rows of the list the priced account sends under. */
const PRICE_ROWS = Number(process.env['BENCH_PRICE_ROWS'] ?? 100_000);

/**
 * A price list of `rows` prefixes as an operator's rate card has them: every length from 3 to 9
 * digits, spread over the calling codes, with the bench's destination's network (4179) among them,
 * so a message is priced by a long prefix among many lengths, as in production.
 */
export function rateCard(rows: number): string {
  const lines = ['prefix,price', '*,0.09', '4179,0.04'];
  const seen = new Set(['4179']);
  // A fixed sequence (xorshift32, exact in 32-bit integers), so every run prices the same list.
  let x = 2_463_534_242;
  for (let tries = 0; seen.size < rows; tries++) {
    if (tries > rows * 10) throw new Error(`could not make ${rows} distinct prefixes`);
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const length = 3 + (x % 7);
    const rest = String(Math.floor(x / 9) % 10 ** (length - 1)).padStart(length - 1, '0');
    const prefix = `${1 + (x % 9)}${rest}`;
    // Longer prefixes of the destination's network would price it instead of 4179.
    if (seen.has(prefix) || prefix.startsWith('4179')) continue;
    seen.add(prefix);
    lines.push(`${prefix},0.0${1 + (x % 9)}`);
  }
  return `${lines.join('\n')}\n`;
}

async function admin(services: Services, method: string, path: string, body: string, type: string) {
  const reply = await fetch(`${services.auth.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type },
    body,
  });
  if (!reply.ok) throw new Error(`${method} ${path}: HTTP ${reply.status} ${await reply.text()}`);
}

/**
 * An account with unlimited credit priced by a list of its own of BENCH_PRICE_ROWS prefixes
 * (docs/billing.md), once every gateway's price book has it: its messages cost a lookup among
 * them where the anchor account's cost none. Answers its Authorization header and the rows.
 */
export async function pricedAccount(
  services: Services,
  username: string,
): Promise<{ authorization: string; rows: number }> {
  const authorization = await services.createAccount(username, { balance: null });
  await admin(
    services,
    'POST',
    '/price-lists',
    JSON.stringify({ name: username }),
    'application/json',
  );
  await admin(
    services,
    'POST',
    `/price-lists/${username}/versions`,
    rateCard(PRICE_ROWS),
    'text/csv',
  );
  await admin(
    services,
    'PUT',
    `/accounts/${username}/pricing`,
    JSON.stringify({ price_list: username }),
    'application/json',
  );
  const { to } = JSON.parse(SEND_BODY) as { to: string };
  for (const gateway of services.gateways) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const reply = await fetch(`${gateway.url}/secure/rate`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ to, content: 'x' }),
      });
      const body = (await reply.json().catch(() => ({}))) as { data?: { rate?: string } };
      if (reply.ok && Number(body.data?.rate) === 0.04) break;
      if (Date.now() > deadline) throw new Error(`${gateway.url} never priced ${to} by the list`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return { authorization, rows: PRICE_ROWS };
}
