import { InvalidArgumentError, type Command } from 'commander';
import type { StalledBatches } from '@smsgw/contracts';
import type { AdminCommandDeps } from './admin-commands';

const whole = (value: string): number => {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};

/**
 * `smsgw batches stalled`: batches of any account that stopped moving, with the reason (admin
 * token). Returns the `batches` group, which other commands join.
 */
export function addBatchAdminCommands(program: Command, d: AdminCommandDeps): Command {
  const batches = program
    .command('batches')
    .description(
      "batches across accounts with the admin token; `list` also gives an account's own (-u/-p)",
    );
  batches
    .command('stalled')
    .description(
      'due batches that have not moved for a while, longest first, with the reason (docs/reliability.md)',
    )
    .option('--after <seconds>', 'without moving for at least this long (default 300)', whole)
    .option('--limit <n>', 'at most this many (at most 1000)', whole)
    .action(async (o: { after?: number; limit?: number }) => {
      const query = new URLSearchParams();
      if (o.after !== undefined) query.set('after', String(o.after));
      if (o.limit !== undefined) query.set('limit', String(o.limit));
      const suffix = query.size > 0 ? `?${query.toString()}` : '';
      d.show(
        await d
          .adminClient()
          .call<StalledBatches>('GET', `/admin/v1/batches/stalled${suffix}`, d.admin()),
      );
    });
  return batches;
}
