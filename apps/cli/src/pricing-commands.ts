import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { GatewayClient } from './gateway-client';

export interface PricingDeps {
  adminClient(): GatewayClient;
  admin(): string;
  show(value: unknown): void;
  print(line: string): void;
}

const path = (name: string) => `/admin/v1/price-lists/${encodeURIComponent(name)}`;

/**
 * `smsgw prices …` (price lists and their CSV versions) and `smsgw groups …` (customer groups),
 * docs/billing.md; an account's group, own list and credit limit are `smsgw accounts pricing`.
 */
export function addPricingCommands(program: Command, d: PricingDeps): void {
  const prices = program
    .command('prices')
    .description('price lists by destination prefix (admin token; docs/billing.md)');
  prices.command('list').action(async () => {
    d.show(await d.adminClient().call('GET', '/admin/v1/price-lists', d.admin()));
  });
  prices
    .command('create <name>')
    .option('--currency <code>', 'ISO 4217', 'EUR')
    .action(async (name: string, o: { currency: string }) => {
      d.show(
        await d
          .adminClient()
          .call('POST', '/admin/v1/price-lists', d.admin(), { name, currency: o.currency }),
      );
    });
  prices
    .command('import <file>')
    .description(
      'a version of the list from CSV: prefix,price[,currency][,description]; a bad row refuses the whole file',
    )
    .requiredOption('--list <name>', 'the price list')
    .option('--from <time>', 'when it takes effect (ISO 8601 with offset); now by default')
    .action(async (file: string, o: { list: string; from?: string }) => {
      const query = o.from === undefined ? '' : `?effective_from=${encodeURIComponent(o.from)}`;
      d.show(
        await d.adminClient().upload(`${path(o.list)}/versions${query}`, d.admin(), {
          text: readFileSync(file, 'utf8'),
          contentType: 'text/csv',
        }),
      );
    });
  prices
    .command('export')
    .description('a version of the list as CSV: the one in effect, or --version')
    .requiredOption('--list <name>', 'the price list')
    .option('--version <id>', 'a version id')
    .action(async (o: { list: string; version?: string }) => {
      const query = o.version === undefined ? '' : `?version=${encodeURIComponent(o.version)}`;
      d.print((await d.adminClient().text(`${path(o.list)}/csv${query}`, d.admin())).trimEnd());
    });

  prices
    .command('costs')
    .description("each connector's cost list (its supplier's prices)")
    .action(async () => {
      d.show(await d.adminClient().call('GET', '/admin/v1/connector-costs', d.admin()));
    });
  prices
    .command('cost <connector>')
    .description(
      "give a connector the list of its supplier's prices, so its messages record their cost",
    )
    .requiredOption('--list <name>', "the price list; 'none' takes it away")
    .action(async (connector: string, o: { list: string }) => {
      d.show(
        await d
          .adminClient()
          .call('PUT', `/admin/v1/connector-costs/${encodeURIComponent(connector)}`, d.admin(), {
            price_list: o.list === 'none' ? null : o.list,
          }),
      );
    });

  const groups = program.command('groups').description('customer groups (admin token)');
  groups.command('list').action(async () => {
    d.show(await d.adminClient().call('GET', '/admin/v1/groups', d.admin()));
  });
  groups
    .command('put <name>')
    .description("make a group, or change it: its price list and its accounts' defaults")
    .option('--price-list <name>', 'the list that prices its accounts; absent: none')
    .option('--throughput <n>', 'messages per second each account without its own cap may send')
    .option('--senders <list>', 'comma-separated sender patterns for accounts without their own')
    .option('--sender-policy <policy>', 'refuse or replace a sender not on the list', 'refuse')
    .action(
      async (
        name: string,
        o: { priceList?: string; throughput?: string; senders?: string; senderPolicy: string },
      ) => {
        d.show(
          await d
            .adminClient()
            .call('PUT', `/admin/v1/groups/${encodeURIComponent(name)}`, d.admin(), {
              price_list: o.priceList ?? null,
              ...(o.throughput !== undefined && { throughput: Number(o.throughput) }),
              ...(o.senders !== undefined && {
                senders: { senders: o.senders.split(','), policy: o.senderPolicy },
              }),
            }),
        );
      },
    );
}

/** `smsgw accounts pricing <username>`: its group, own list and credit limit, shown or changed. */
export function addAccountPricingCommand(accounts: Command, d: PricingDeps): void {
  accounts
    .command('pricing <username>')
    .description("its group, its own price list (over its group's) and its credit limit (postpaid)")
    .option('--group <name>', "its customer group; 'none' takes it out")
    .option('--price-list <name>', "a list of its own; 'none' takes it away")
    .option('--credit-limit <amount>', 'how far below zero its balance may go; 0: prepaid')
    .action(
      async (username: string, o: { group?: string; priceList?: string; creditLimit?: string }) => {
        const target = `/admin/v1/accounts/${encodeURIComponent(username)}/pricing`;
        const orNull = (v: string) => (v === 'none' ? null : v);
        const change = {
          ...(o.group !== undefined && { group: orNull(o.group) }),
          ...(o.priceList !== undefined && { price_list: orNull(o.priceList) }),
          ...(o.creditLimit !== undefined && { credit_limit: o.creditLimit }),
        };
        d.show(
          Object.keys(change).length === 0
            ? await d.adminClient().call('GET', target, d.admin())
            : await d.adminClient().call('PUT', target, d.admin(), change),
        );
      },
    );
}
