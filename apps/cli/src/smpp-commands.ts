import { InvalidArgumentError, type Command } from 'commander';
import type { SmppAccessView, SmppSessionView } from '@smsgw/contracts';
import type { AdminCommandDeps } from './admin-commands';

const whole = (value: string): number => {
  if (!/^\d{1,6}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};
const rate = (value: string): number | null => (value === 'none' ? null : whole(value));

interface AccessOptions {
  password?: string;
  maxSessions?: number;
  throughput?: number | null;
  allowFrom: string[];
  anyAddress?: boolean;
  remove?: boolean;
}

/**
 * `smsgw smpp access <username>`: an account's SMPP access (docs/smpp-server.md), shown, given or
 * changed, or taken away (admin token).
 */
export function addSmppCommands(program: Command, d: AdminCommandDeps): void {
  const smpp = program.command('smpp').description("customers' SMPP access (admin token)");
  smpp
    .command('access <username>')
    .description(
      'show, give or change (--password, --max-sessions, --throughput, --allow-from) or take away (--remove) SMPP access; system_id is the username',
    )
    .option('--password <password>', 'its SMPP password (8 characters, SMPP 3.4)')
    .option('--max-sessions <n>', 'sessions it may hold at once across replicas', whole)
    .option('--throughput <n>', "messages per second over all its sessions, or 'none'", rate)
    .option(
      '--allow-from <address>',
      'an IP address or CIDR range it may bind from (repeat for several)',
      (value: string, list: string[]) => [...list, value],
      [] as string[],
    )
    .option('--any-address', 'let it bind from any address again')
    .option('--remove', 'take the access away and close its sessions')
    .action(async (username: string, o: AccessOptions) => {
      const path = `/admin/v1/accounts/${encodeURIComponent(username)}/smpp`;
      if (o.remove) {
        await d.adminClient().call<undefined>('DELETE', path, d.admin());
        d.show({ system_id: username, removed: true });
        return;
      }
      const body = {
        ...(o.password !== undefined && { password: o.password }),
        ...(o.maxSessions !== undefined && { max_sessions: o.maxSessions }),
        ...(o.throughput !== undefined && { throughput: o.throughput }),
        ...(o.allowFrom.length > 0 && { allowed_addresses: o.allowFrom }),
        ...(o.anyAddress && { allowed_addresses: [] }),
      };
      d.show(
        Object.keys(body).length > 0
          ? await d.adminClient().call<SmppAccessView>('PUT', path, d.admin(), body)
          : await d.adminClient().call<SmppAccessView>('GET', path, d.admin()),
      );
    });
  smpp
    .command('sessions')
    .description(
      'the sessions bound to every replica, or --close one (it is unbound within seconds)',
    )
    .option('--close <id>', 'the id of the session to unbind and close')
    .action(async (o: { close?: string }) => {
      if (o.close !== undefined) {
        await d
          .adminClient()
          .call<undefined>(
            'DELETE',
            `/admin/v1/smpp/sessions/${encodeURIComponent(o.close)}`,
            d.admin(),
          );
        d.show({ id: o.close, closing: true });
        return;
      }
      d.show(
        await d
          .adminClient()
          .call<{ data: SmppSessionView[] }>('GET', '/admin/v1/smpp/sessions', d.admin()),
      );
    });
}
