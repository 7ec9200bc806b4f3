import { InvalidArgumentError, type Command } from 'commander';
import { BIND_MODES, ROUTE_KINDS, type ConnectorView } from '@smsgw/contracts';
import type { GatewayClient } from './gateway-client';

export interface RoutingDeps {
  adminClient(): GatewayClient;
  admin(): string;
  show(value: unknown): void;
  print(line: string): void;
}

const whole = (value: string): number => {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};
const many = (value: string, previous: string[] = []): string[] => [...previous, value];
const oneOf =
  (choices: readonly string[]) =>
  (value: string): string => {
    if (!choices.includes(value)) throw new InvalidArgumentError(`expected ${choices.join(', ')}`);
    return value;
  };
const bindMode = oneOf(BIND_MODES);

/** `name` or `name:weight`, as --connector takes them. */
const target = (value: string, previous: { connector: string; weight?: number }[] = []) => {
  const [connector, weight, extra] = value.split(':');
  if (!connector || extra !== undefined || (weight !== undefined && !/^\d{1,7}$/.test(weight)))
    throw new InvalidArgumentError('expected a connector name, or name:weight');
  return [
    ...previous,
    weight === undefined ? { connector } : { connector, weight: Number(weight) },
  ];
};

/**
 * `tag:type:value` as --tlv takes it (the value may hold colons), sent as custom_tlvs' `[tag, type,
 * value]`; the gateway checks it.
 */
const tlv = (value: string, previous: [string, string, string][] = []) => {
  const match = /^([^:]+):([^:]+):(.*)$/s.exec(value);
  if (!match)
    throw new InvalidArgumentError('expected tag:type:value, e.g. 0x1400:OctetString:1201');
  return [...previous, [match[1], match[2], match[3]] as [string, string, string]];
};

/** `tlvs <name>` and `set-tlvs <name> --tlv …` of connectors or routes (docs/routing.md § TLVs). */
function tlvCommands(
  group: Command,
  path: (name: string) => string,
  whose: string,
  call: (method: string, path: string, body?: unknown) => Promise<unknown>,
  show: (value: unknown) => void,
): void {
  group
    .command('tlvs <name>')
    .description(`show the ${whose}`)
    .action(async (name: string) => {
      show(await call('GET', `${path(name)}/tlvs`));
    });
  group
    .command('set-tlvs <name>')
    .description(`replace the ${whose}; without --tlv, remove them`)
    .option(
      '--tlv <tag:type:value>',
      'a TLV, e.g. 0x1400:OctetString:1201159100000000001 (repeat)',
      tlv,
    )
    .action(async (name: string, o: { tlv?: [string, string, string][] }) => {
      show(await call('PUT', `${path(name)}/tlvs`, { tlvs: o.tlv ?? [] }));
    });
}

/** A table an operator reads at a glance, like Kannel's status page. */
function connectorTable(connectors: ConnectorView[]): string[] {
  const rows = [
    ['NAME', 'STATE', 'SESSIONS', 'WINDOW', 'WAITING', 'RATE/S', 'LAST ERROR'],
    ...connectors.map((c) => [
      c.name,
      c.state,
      `${c.sessions}/${c.binds}`,
      String(c.windowInUse),
      String(c.waiting),
      String(c.rate),
      c.lastError ?? '',
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/** `smsgw connectors …` and `smsgw routes …` (docs/routing.md). */
export function addRoutingCommands(program: Command, d: RoutingDeps): void {
  const call = (method: string, path: string, body?: unknown) =>
    d.adminClient().call(method, path, d.admin(), body);
  const named = (kind: string, name: string) => `/admin/v1/${kind}/${encodeURIComponent(name)}`;

  const connectors = program
    .command('connectors')
    .description('links to SMSCs: state, sessions, window, rate (admin token)');
  connectors
    .command('list')
    .option('--json', 'the API answer as JSON')
    .action(async (o: { json?: boolean }) => {
      const answer = (await call('GET', '/admin/v1/connectors')) as { data: ConnectorView[] };
      if (o.json) d.show(answer);
      else for (const line of connectorTable(answer.data)) d.print(line);
    });
  connectors.command('show <name>').action(async (name: string) => {
    d.show(await call('GET', named('connectors', name)));
  });
  connectors
    .command('add <name> <url>')
    .description('smpp://, smpps://, http:// or https:// with the parameters SMSC_URL takes')
    .option('--binds <n>', 'sessions the connector may have open across the cluster', whole)
    .option('--bind <mode>', 'transceiver (default) or transmitter_receiver', bindMode)
    .action(async (name: string, url: string, o: { binds?: number; bind?: string }) => {
      d.show(
        await call('POST', '/admin/v1/connectors', {
          name,
          url,
          ...(o.binds !== undefined && { binds: o.binds }),
          ...(o.bind !== undefined && { bind: o.bind }),
        }),
      );
    });
  connectors
    .command('update <name>')
    .option('--url <url>', 'a new URL')
    .option('--binds <n>', 'sessions across the cluster', whole)
    .option('--bind <mode>', 'transceiver or transmitter_receiver', bindMode)
    .action(async (name: string, o: { url?: string; binds?: number; bind?: string }) => {
      d.show(await call('PATCH', named('connectors', name), o));
    });
  connectors.command('remove <name>').action(async (name: string) => {
    d.show(await call('DELETE', named('connectors', name)));
  });
  for (const action of ['stop', 'start'] as const)
    connectors
      .command(`${action} <name>`)
      .description(
        action === 'stop'
          ? 'unbind it and hold its traffic (failover routes pass theirs on)'
          : 'bind it again',
      )
      .action(async (name: string) => {
        d.show(await call('POST', `${named('connectors', name)}/${action}`));
      });

  tlvCommands(
    connectors,
    (name) => named('connectors', name),
    "connector's default TLVs",
    call,
    (value) => d.show(value),
  );

  const routes = program.command('routes').description('MT routes (admin token)');
  routes.command('list').action(async () => {
    d.show(await call('GET', '/admin/v1/routes'));
  });
  routes.command('show <name>').action(async (name: string) => {
    d.show(await call('GET', named('routes', name)));
  });
  routes
    .command('put <name>')
    .description('create or replace a route')
    .requiredOption('--position <n>', 'routes are tried from the lowest position', whole)
    .requiredOption('--kind <kind>', 'static, weighted or failover', oneOf(ROUTE_KINDS))
    .requiredOption(
      '--connector <name[:weight]>',
      'a connector (repeat, in order; weighted: name:weight)',
      target,
    )
    .option('--prefix <digits>', 'destination prefix (repeat)', many)
    .option('--pattern <regex>', 'RE2 regular expression the whole destination matches')
    .option('--account <username>', 'account (repeat)', many)
    .option('--sender <id>', 'sender (repeat)', many)
    .option('--tag <tag>', 'message tag (repeat); with --account, or --any-account', many)
    .option('--any-account', 'a route with --tag is open to every account that gives the tag')
    .option('--days <days>', 'days of week, e.g. mon,tue,wed')
    .option('--from <HH:MM>', 'start of the hours window')
    .option('--to <HH:MM>', 'end of the hours window')
    .option('--tz <zone>', 'time zone of the window (default UTC)')
    .option('--reroute-on <status>', 'SMPP status that passes to the next connector (repeat)', many)
    .option('--price <decimal>', 'price per message part, instead of the account rate')
    .action(
      async (
        name: string,
        o: {
          position: number;
          kind: string;
          connector: { connector: string; weight?: number }[];
          prefix?: string[];
          pattern?: string;
          account?: string[];
          sender?: string[];
          tag?: string[];
          anyAccount?: boolean;
          days?: string;
          from?: string;
          to?: string;
          tz?: string;
          rerouteOn?: string[];
          price?: string;
        },
      ) => {
        const window =
          o.days || o.from || o.to || o.tz
            ? {
                ...(o.days && { days: o.days.split(',') }),
                ...(o.from && { from: o.from }),
                ...(o.to && { to: o.to }),
                ...(o.tz && { time_zone: o.tz }),
              }
            : undefined;
        d.show(
          await call('PUT', named('routes', name), {
            position: o.position,
            kind: o.kind,
            connectors: o.connector,
            filters: {
              ...(o.prefix && { prefixes: o.prefix }),
              ...(o.pattern && { pattern: o.pattern }),
              ...(o.account && { accounts: o.account }),
              ...(o.sender && { senders: o.sender }),
              ...(o.tag && { tags: o.tag }),
              ...(o.anyAccount && { any_account: true }),
              ...(window && { window }),
            },
            ...(o.rerouteOn && { reroute_on: o.rerouteOn }),
            ...(o.price !== undefined && { price: o.price }),
          }),
        );
      },
    );
  routes.command('remove <name>').action(async (name: string) => {
    d.show(await call('DELETE', named('routes', name)));
  });
  tlvCommands(
    routes,
    (name) => named('routes', name),
    "route's TLV overrides",
    call,
    (value) => d.show(value),
  );
}
