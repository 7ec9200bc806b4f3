import { ADMIN_TOKEN, type Services } from './cluster';
import { SEND_BODY } from './http-load';
import { rateCard } from './rate-card';

/** BENCH_PRICE_ROWS: the rows of the list the priced account sends under. */
const PRICE_ROWS = Number(process.env['BENCH_PRICE_ROWS'] ?? 100_000);

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
