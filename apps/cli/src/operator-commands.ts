import { InvalidArgumentError, type Command } from 'commander';
import {
  AccountListQuerySchema,
  AdminBatchSearchQuerySchema,
  AdminMessageSearchQuerySchema,
  BATCH_STATES,
  MESSAGE_ENTRIES,
  MESSAGE_STATE_FILTERS,
  SEARCH_DEFAULTS,
  type AccountList,
  type BatchSearchResult,
  type BatchSummary,
  type MessageSearchResult,
  type MessageSummary,
  type MessageTimeline,
} from '@smsgw/contracts';
import type { GatewayClient } from './gateway-client';
import { accountColumns, batchColumns, messageColumns, type AccountRow } from './listing-columns';
import { printListing, type Listing, type ListingOptions } from './paged-listing';
import { checkedBy, pageSize, pointInTime, queryOf } from './search-options';
import { printTimeline } from './timeline-view';

type ClientOptions = { user?: string; password?: string; token?: string };
type ListOptions = ListingOptions & { limit?: number };
type Filters<K extends string> = ListOptions & ClientOptions & { [key in K]?: string };

const MESSAGE_FILTERS = [
  'since',
  'until',
  'to',
  'from',
  'state',
  'batch',
  'connector',
  'route',
  'entry',
  'account',
  'id',
] as const;
const BATCH_FILTERS = ['since', 'until', 'state', 'account'] as const;

/** The filters given, under the names of the gateway's query. */
const given = <K extends string>(o: Filters<K>, names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, o[name]]));

export interface OperatorCommandDeps {
  client(): GatewayClient;
  adminClient(): GatewayClient;
  admin(): string;
  credentials(o: ClientOptions): string;
  clientAuth(c: Command): Command;
  env: NodeJS.ProcessEnv;
  print(line: string): void;
  show(value: unknown): void;
  /** The `accounts` and `batches` groups, which `list` joins. */
  accounts: Command;
  batches: Command;
}

const messageFilter = AdminMessageSearchQuerySchema.shape;
const batchFilter = AdminBatchSearchQuerySchema.shape;

const OUTPUT_HELP = `
Output: a table for people, the first page only, then the --next that goes on from it.
  --all     follows next to the end, printing each page as it comes
  --json    the gateway's answer as it is; with --all NDJSON: one row a line, as the answer has it
Times: ISO 8601 with offset (2026-12-01T08:00:00Z) or a while ago (30m, 6h, 2d).`;

const CUSTOMER_HELP =
  "the account's own with -u/-p or --token (or SMSGW_USER and SMSGW_PASSWORD while no admin token is set)";

/** Options every listing has: page size, where to go on from, every page, JSON. */
const listingOptions = (c: Command): Command =>
  c
    .option(
      '--limit <n>',
      `rows per page (default ${SEARCH_DEFAULTS.limit}, at most ${SEARCH_DEFAULTS.maxLimit})`,
      pageSize,
    )
    .option('--next <value>', 'go on from the `next` an earlier page printed')
    .option('--all', 'every page, following next')
    .option('--json', "the gateway's JSON (NDJSON with --all)");

/**
 * `smsgw accounts list`, `smsgw messages search|show` and `smsgw batches list`: the operators' view
 * (docs/operators.md). The searches serve a customer too: with the account's credentials they ask
 * /secure for its own, otherwise /admin/v1 with the admin token.
 */
export function addOperatorCommands(program: Command, d: OperatorCommandDeps): void {
  const time = pointInTime();
  const out = { print: (line: string) => d.print(line), show: (value: unknown) => d.show(value) };
  /** A customer when their credentials are given, or are all the environment holds. */
  const asCustomer = (o: ClientOptions): boolean =>
    o.user !== undefined ||
    o.password !== undefined ||
    o.token !== undefined ||
    (d.env['SMSGW_USER'] !== undefined &&
      d.env['SMSGW_ADMIN_TOKEN'] === undefined &&
      d.env['ADMIN_TOKEN'] === undefined);
  const caller = (o: ClientOptions) =>
    asCustomer(o)
      ? { customer: true, client: d.client(), auth: d.credentials(o) }
      : { customer: false, client: d.adminClient(), auth: d.admin() };
  const ownOnly = (o: { account?: string }, what: string) => {
    if (o.account !== undefined)
      throw new InvalidArgumentError(
        `--account is for the admin token; an account sees its own ${what}`,
      );
  };

  const accountList = d.accounts
    .command('list')
    .description('accounts in name order, with balance, quota and state (scope accounts:read)')
    .option('--search <text>', 'names that contain it', checkedBy(AccountListQuerySchema.shape.q));
  listingOptions(accountList)
    .addHelpText('after', OUTPUT_HELP)
    .action(async (o: ListOptions & { search?: string }) => {
      const listing: Listing<AccountRow> = {
        noun: 'accounts',
        columns: accountColumns,
        page: async (next) => {
          const query = queryOf({ q: o.search, limit: o.limit, next });
          const raw = await d
            .adminClient()
            .call<AccountList>('GET', `/admin/v1/accounts${query}`, d.admin());
          return { raw, rows: raw.data.accounts, next: raw.data.next };
        },
      };
      await printListing(listing, o, out);
    });

  const messages = program
    .command('messages')
    .description("find messages and read a message's story (docs/operators.md)");
  const search = messages
    .command('search')
    .description(
      'messages newest first, by time, destination, sender, state, batch, connector, route, ' +
        "entry, account or id: every account's with the admin token (scope messages:read; the " +
        `text needs messages:content), or ${CUSTOMER_HELP}`,
    )
    .option('--since <time>', 'accepted at or after (default: a day before --until)', time)
    .option('--until <time>', 'accepted before (default: now)', time)
    .option(
      '--to <number>',
      "destination: exact digits, or a prefix ending in * ('4179*')",
      checkedBy(messageFilter.to),
    )
    .option('--from <sender>', 'sender, as sent', checkedBy(messageFilter.from))
    .option(
      '--state <states>',
      `comma list of ${MESSAGE_STATE_FILTERS.join(', ')}`,
      checkedBy(messageFilter.state),
    )
    .option('--batch <batchId>', 'of this batch', checkedBy(messageFilter.batch))
    .option(
      '--connector <name>',
      'offered to this connector (an account: where SHOW_ROUTES_TO_CUSTOMERS)',
      checkedBy(messageFilter.connector),
    )
    .option(
      '--route <name>',
      'taken by this MT route (an account: where SHOW_ROUTES_TO_CUSTOMERS)',
      checkedBy(messageFilter.route),
    )
    .option(
      '--entry <entry>',
      `came in through ${MESSAGE_ENTRIES.join(', ')}`,
      checkedBy(messageFilter.entry),
    )
    .option(
      '--account <username>',
      "this account's (admin token only)",
      checkedBy(messageFilter.account),
    )
    .option('--id <messageId>', 'this message', checkedBy(messageFilter.id));
  d.clientAuth(listingOptions(search))
    .addHelpText(
      'after',
      `${OUTPUT_HELP}\nA search spans at most ${SEARCH_DEFAULTS.maxDays} days by default (SEARCH_MAX_DAYS).\n` +
        "Example: smsgw messages search --account alice --to '4479*' --state failed,unknown --since 6h",
    )
    .action(async (o: Filters<(typeof MESSAGE_FILTERS)[number]>) => {
      const who = caller(o);
      if (who.customer) ownOnly(o, 'messages');
      const path = who.customer ? '/secure/messages' : '/admin/v1/messages';
      const listing: Listing<MessageSummary> = {
        noun: 'messages',
        columns: messageColumns(!who.customer),
        page: async (next) => {
          const query = queryOf({ ...given(o, MESSAGE_FILTERS), limit: o.limit, next });
          const raw = await who.client.call<MessageSearchResult>(
            'GET',
            `${path}${query}`,
            who.auth,
          );
          return { raw, rows: raw.data.messages, next: raw.data.next, range: raw.data };
        },
      };
      await printListing(listing, o, out);
    });

  messages
    .command('show')
    .description(
      "a message's facts, then its story one line per event: time, event, what happened " +
        '(admin token, scope messages:read)',
    )
    .argument('<id>', 'the message id', checkedBy(messageFilter.id))
    .option('--json', "the gateway's JSON")
    .action(async (id: string, o: { json?: boolean }) => {
      const timeline = await d
        .adminClient()
        .call<MessageTimeline>('GET', `/admin/v1/messages/${encodeURIComponent(id)}`, d.admin());
      if (o.json) d.show(timeline);
      else printTimeline(timeline, (line) => d.print(line));
    });

  const batchList = d.batches
    .command('list')
    .description(
      "batches newest first, by time, state or account: every account's with the admin token " +
        `(scope batches:read), or ${CUSTOMER_HELP}`,
    )
    .option('--since <time>', 'created at or after (default: a day before --until)', time)
    .option('--until <time>', 'created before (default: now)', time)
    .option('--state <state>', BATCH_STATES.join(', '), checkedBy(batchFilter.state))
    .option(
      '--account <username>',
      "this account's (admin token only)",
      checkedBy(batchFilter.account),
    );
  d.clientAuth(listingOptions(batchList))
    .addHelpText('after', OUTPUT_HELP)
    .action(async (o: Filters<(typeof BATCH_FILTERS)[number]>) => {
      const who = caller(o);
      if (who.customer) ownOnly(o, 'batches');
      const path = who.customer ? '/secure/batches' : '/admin/v1/batches';
      const listing: Listing<BatchSummary> = {
        noun: 'batches',
        columns: batchColumns(!who.customer),
        page: async (next) => {
          const query = queryOf({ ...given(o, BATCH_FILTERS), limit: o.limit, next });
          const raw = await who.client.call<BatchSearchResult>('GET', `${path}${query}`, who.auth);
          return { raw, rows: raw.data.batches, next: raw.data.next, range: raw.data };
        },
      };
      await printListing(listing, o, out);
    });
}
