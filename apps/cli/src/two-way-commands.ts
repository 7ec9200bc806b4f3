import { InvalidArgumentError, type Command } from 'commander';
import type { InboundMessageView } from '@smsgw/contracts';
import type { GatewayClient } from './gateway-client';

type ClientOptions = { user?: string; password?: string; token?: string };

export interface TwoWayDeps {
  client(): GatewayClient;
  adminClient(): GatewayClient;
  admin(): string;
  credentials(o: ClientOptions): string;
  clientAuth(c: Command): Command;
  show(value: unknown): void;
  print(line: string): void;
}

const whole = (value: string): number => {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

/** One line per inbound message, as `inbound tail` prints them. */
const line = (m: InboundMessageView): string =>
  `${m.receivedAt} ${m.from} → ${m.to} [${m.connector}] ${m.text ?? `(binary ${m.binary ?? ''})`}`;

/**
 * `smsgw mo-routes …`, `smsgw inbound …`, `smsgw optouts …`, `smsgw inbound-secret …`
 * (docs/inbound.md).
 */
export function addTwoWayCommands(program: Command, d: TwoWayDeps): void {
  const routes = program.command('mo-routes').description('inbound (MO) routes (admin token)');
  routes.command('list').action(async () => {
    d.show(await d.adminClient().call('GET', '/admin/v1/mo-routes', d.admin()));
  });
  routes.command('show <name>').action(async (name: string) => {
    d.show(
      await d
        .adminClient()
        .call('GET', `/admin/v1/mo-routes/${encodeURIComponent(name)}`, d.admin()),
    );
  });
  routes
    .command('set <name>')
    .description('create or replace a route')
    .requiredOption('--position <n>', 'routes are tried from the lowest position', whole)
    .requiredOption('--account <username>', 'the account that receives the messages')
    .option('--to <number>', 'the number the messages were sent to (a prefix)')
    .option('--exact', '--to is the exact number, not a prefix')
    .option('--keyword <word>', "the message's first word")
    .option('--connector <name>', 'the connector it came through (default: default)')
    .option('--any-connector', 'messages of any connector (any upstream may claim any number)')
    .option('--webhook <url>', 'POST each message there; without it, into the inbox only')
    .option(
      '--format <format>',
      'json (default), jasmin (Jasmin MO form fields) or kannel (the webhook is a Kannel sms-service URL template, called with GET, its answer the reply)',
    )
    .option('--no-reply', 'kannel: do not send the service answer back to the sender')
    .action(
      async (
        name: string,
        o: {
          position: number;
          account: string;
          to?: string;
          exact?: boolean;
          keyword?: string;
          connector?: string;
          anyConnector?: boolean;
          webhook?: string;
          format?: string;
          reply?: boolean;
        },
      ) => {
        d.show(
          await d
            .adminClient()
            .call('PUT', `/admin/v1/mo-routes/${encodeURIComponent(name)}`, d.admin(), {
              position: o.position,
              account: o.account,
              exact: o.exact ?? false,
              ...(o.to !== undefined && { to: o.to }),
              ...(o.keyword !== undefined && { keyword: o.keyword }),
              ...(o.connector !== undefined && { connector: o.connector }),
              ...(o.anyConnector === true && { any_connector: true }),
              ...(o.webhook !== undefined && { webhook_url: o.webhook }),
              ...(o.format !== undefined && { webhook_format: o.format }),
              ...(o.reply === false && { kannel_reply: false }),
            }),
        );
      },
    );
  routes.command('delete <name>').action(async (name: string) => {
    d.show(
      await d
        .adminClient()
        .call('DELETE', `/admin/v1/mo-routes/${encodeURIComponent(name)}`, d.admin()),
    );
  });

  const inbound = program.command('inbound').description("the account's inbound messages");
  d.clientAuth(inbound.command('list'))
    .option('--to <number>', 'only those sent to this number')
    .option('--from <number>', 'only those from this number')
    .option('--since <time>', 'received at or after (ISO 8601)')
    .option('--limit <n>', 'at most this many (newest first)', whole)
    .option('--cursor <next>', "the previous page's next")
    .action(async (o: ClientOptions & Record<string, string | number | undefined>) => {
      const query = new URLSearchParams();
      for (const key of ['to', 'from', 'since', 'limit', 'cursor'])
        if (o[key] !== undefined) query.set(key, String(o[key]));
      d.show(
        (
          await d
            .client()
            .call<{ data: unknown }>('GET', `/secure/inbound?${query.toString()}`, d.credentials(o))
        ).data,
      );
    });
  d.clientAuth(inbound.command('tail'))
    .description('print new inbound messages as they arrive')
    .option('--interval <ms>', 'how often to look (default 1000)', whole)
    .option('--count <n>', 'stop after this many', whole)
    .option('--for <seconds>', 'stop after this long', whole)
    .action(async (o: ClientOptions & { interval?: number; count?: number; for?: number }) => {
      const auth = d.credentials(o);
      const seen = new Set<string>();
      const started = new Date();
      const until = o.for === undefined ? Infinity : Date.now() + o.for * 1000;
      let printed = 0;
      while (Date.now() < until && (o.count === undefined || printed < o.count)) {
        const page = await d
          .client()
          .call<{ data: { messages: InboundMessageView[] } }>(
            'GET',
            `/secure/inbound?limit=100&since=${encodeURIComponent(started.toISOString())}`,
            auth,
          );
        for (const m of page.data.messages.reverse()) {
          if (seen.has(m.id) || (o.count !== undefined && printed >= o.count)) continue;
          seen.add(m.id);
          d.print(line(m));
          printed++;
        }
        await new Promise((r) => setTimeout(r, o.interval ?? 1000));
      }
    });

  const optouts = program.command('optouts').description("an account's opt-out list (admin token)");
  const path = (username: string, number?: string) =>
    `/admin/v1/accounts/${encodeURIComponent(username)}/optouts${number === undefined ? '' : `/${encodeURIComponent(number)}`}`;
  optouts.command('list <username>').action(async (username: string) => {
    d.show(await d.adminClient().call('GET', path(username), d.admin()));
  });
  optouts.command('add <username> <number>').action(async (username: string, number: string) => {
    d.show(await d.adminClient().call('POST', path(username), d.admin(), { number }));
  });
  optouts.command('remove <username> <number>').action(async (username: string, number: string) => {
    d.show(await d.adminClient().call('DELETE', path(username, number), d.admin()));
  });
  const secret = program
    .command('inbound-secret')
    .description('the secret an HTTP upstream presents as its connector (admin token)');
  const secretPath = (connector: string) =>
    `/admin/v1/connectors/${encodeURIComponent(connector)}/inbound-secret`;
  secret
    .command('set <connector>')
    .description('from SMSGW_INBOUND_SECRET (not an argument: arguments show in process lists)')
    .action(async (connector: string) => {
      const value = process.env['SMSGW_INBOUND_SECRET'];
      if (!value) throw new InvalidArgumentError('set SMSGW_INBOUND_SECRET to the secret');
      d.show(
        await d.adminClient().call('PUT', secretPath(connector), d.admin(), { secret: value }),
      );
    });
  secret.command('show <connector>').action(async (connector: string) => {
    d.show(await d.adminClient().call('GET', secretPath(connector), d.admin()));
  });
  secret.command('clear <connector>').action(async (connector: string) => {
    d.show(await d.adminClient().call('DELETE', secretPath(connector), d.admin()));
  });

  const wordsPath = (username: string) =>
    `/admin/v1/accounts/${encodeURIComponent(username)}/optout-words`;
  optouts
    .command('words <username>')
    .description(
      "show the account's opt-out words; with an option, replace them (the others: the defaults)",
    )
    .option('--optout <words>', 'comma-separated words that opt out ("" for none)')
    .option('--optin <words>', 'comma-separated words that opt in again ("" for none)')
    .option('--transactional', 'one-time passwords, alerts: the list does not hold its sends')
    .action(
      async (username: string, o: { optout?: string; optin?: string; transactional?: boolean }) => {
        const list = (v: string) => v.split(',').filter((w) => w.trim() !== '');
        if (o.optout === undefined && o.optin === undefined && o.transactional === undefined) {
          d.show(await d.adminClient().call('GET', wordsPath(username), d.admin()));
          return;
        }
        d.show(
          await d.adminClient().call('PUT', wordsPath(username), d.admin(), {
            optout: o.optout === undefined ? null : list(o.optout),
            optin: o.optin === undefined ? null : list(o.optin),
            transactional: o.transactional ?? false,
          }),
        );
      },
    );
}
