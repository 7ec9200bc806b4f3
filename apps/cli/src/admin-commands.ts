import { InvalidArgumentError, type Command } from 'commander';
import { ADMIN_SCOPES } from '@smsgw/contracts';
import type { GatewayClient } from './gateway-client';

export interface AdminCommandDeps {
  adminClient(): GatewayClient;
  admin(): string;
  show(value: unknown): void;
}

const scope = (value: string, previous: string[] = []): string[] => {
  if (!(ADMIN_SCOPES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${ADMIN_SCOPES.join(', ')}`);
  return [...previous, value];
};

const whole = (value: string): number => {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

/** `smsgw admin-tokens …` (scoped admin tokens) and `smsgw audit` (the admin audit trail). */
export function addAdminCommands(program: Command, d: AdminCommandDeps): void {
  const tokens = program
    .command('admin-tokens')
    .description('named admin tokens with scopes (docs/security.md, Admin tokens and audit)');
  tokens
    .command('create <name>')
    .description('make a token; it is printed once and only its hash is kept')
    .requiredOption(
      '--scope <scope>',
      `a scope it holds, repeatable: ${ADMIN_SCOPES.join(', ')}`,
      scope,
    )
    .action(async (name: string, o: { scope: string[] }) => {
      d.show(
        await d.adminClient().call('POST', '/admin/v1/tokens', d.admin(), {
          name,
          scopes: o.scope,
        }),
      );
    });
  tokens.command('list').action(async () => {
    d.show(await d.adminClient().call('GET', '/admin/v1/tokens', d.admin()));
  });
  tokens.command('revoke <name>').action(async (name: string) => {
    d.show(
      await d
        .adminClient()
        .call('DELETE', `/admin/v1/tokens/${encodeURIComponent(name)}`, d.admin()),
    );
  });

  program
    .command('audit')
    .description('admin changes, newest first (the `next` of a page is the --cursor of the next)')
    .option('--actor <name>', 'ADMIN_TOKEN or an admin token name')
    .option('--action <action>', "as recorded, e.g. 'POST /accounts/:username/credit'")
    .option('--target <prefix>', 'targets starting so, e.g. /accounts/alice')
    .option('--result <result>', 'ok, denied or failed')
    .option('--since <time>', 'ISO 8601 time with offset')
    .option('--until <time>', 'ISO 8601 time with offset')
    .option('--limit <n>', 'entries per page (at most 500)', whole)
    .option('--cursor <id>', 'the next value of the previous page')
    .action(async (o: Record<string, string | number | undefined>) => {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(o))
        if (value !== undefined) query.set(key, String(value));
      const suffix = query.size > 0 ? `?${query.toString()}` : '';
      d.show(await d.adminClient().call('GET', `/admin/v1/audit${suffix}`, d.admin()));
    });
}
