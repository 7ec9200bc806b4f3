import { Command, InvalidArgumentError } from 'commander';
import type {
  AccountView,
  BalanceResult,
  BatchResult,
  BatchStatus,
  SendResult,
  SenderRulesView,
} from '@smsgw/contracts';
import { followBatch } from './batch-progress';
import { readRecipients } from './recipients-file';
import { adminToken, adminUrl, gatewayUrl } from './cli-settings';
import { GatewayClient, basicAuth } from './gateway-client';
import { addTwoWayCommands } from './two-way-commands';
import { addRoutingCommands } from './routing-commands';
import { addAdminCommands } from './admin-commands';
import { addBatchAdminCommands } from './batch-admin-commands';
import { addOperatorCommands } from './operator-commands';
import { addSmppCommands } from './smpp-commands';
import { addAccountPricingCommand, addPricingCommands } from './pricing-commands';
import { addCdrCommands } from './cdr-commands';

const decimal = (value: string): string => {
  if (!/^\d{1,14}(\.\d{1,6})?$/.test(value))
    throw new InvalidArgumentError('expected a decimal number such as 10 or 0.05');
  return value;
};
const integer = (value: string): number => {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
};
const signedDecimal = (value: string): string => {
  if (!/^-?\d{1,14}(\.\d{1,6})?$/.test(value))
    throw new InvalidArgumentError('expected a decimal number');
  return value;
};

export interface Io {
  env: NodeJS.ProcessEnv;
  print(line: string): void;
  /** Where the progress bar is drawn (stderr in a terminal; nothing when absent). */
  progress?: NodeJS.WritableStream;
  /** Where an export is streamed (stdout unless given). */
  out?: NodeJS.WritableStream;
  /** How often batch status is asked for. */
  pollMs?: number;
  /** Where usage errors go (stderr unless given). */
  printError?(text: string): void;
}

/** `smsgw`: the admin API of README, "Admin API and CLI" and the client API, over HTTP. */
export function buildProgram(io: Io): Command {
  const client = () => new GatewayClient({ baseUrl: gatewayUrl(io.env) });
  const adminClient = () =>
    new GatewayClient({ baseUrl: adminUrl(io.env), urlVariable: 'SMSGW_ADMIN_URL' });
  const admin = () => `Bearer ${adminToken(io.env)}`;
  const show = (value: unknown) => io.print(JSON.stringify(value, null, 2));

  const program = new Command('smsgw').description(
    'sms-gateway admin and client commands (SMSGW_URL, SMSGW_ADMIN_URL, SMSGW_ADMIN_TOKEN)',
  );
  program.exitOverride();
  if (io.printError) program.configureOutput({ writeErr: (text) => io.printError?.(text) });

  const accounts = program.command('accounts').description('manage accounts (admin token)');
  accounts
    .command('create <username>')
    .requiredOption('--password <password>', 'password for HTTP Basic (at least 8 characters)')
    .option('--balance <amount>', 'starting balance; omitted = 0 (cannot send)', decimal)
    .option('--unlimited', 'no balance limit (an explicit choice; not with --balance)')
    .option('--sms-count <n>', 'SMS quota in segments; omitted = unlimited', integer)
    .option('--rate <amount>', 'price of one SMS segment', decimal)
    .option('--default-from <sender>', 'sender used when a message has no from')
    .option(
      '--throughput <perSecond>',
      'messages per second for this account; 0 = unlimited',
      integer,
    )
    .action(
      async (
        username: string,
        o: {
          password: string;
          balance?: string;
          unlimited?: boolean;
          smsCount?: number;
          rate?: string;
          defaultFrom?: string;
          throughput?: number;
        },
      ) => {
        if (o.unlimited && o.balance !== undefined)
          throw new InvalidArgumentError('give --balance or --unlimited, not both');
        const account = await adminClient().call<AccountView>(
          'POST',
          '/admin/v1/accounts',
          admin(),
          {
            username,
            password: o.password,
            ...(o.balance !== undefined && { balance: o.balance }),
            ...(o.unlimited === true && { balance: null }),
            ...(o.smsCount !== undefined && { sms_count: o.smsCount }),
            ...(o.rate !== undefined && { rate: o.rate }),
            ...(o.defaultFrom !== undefined && { default_from: o.defaultFrom }),
            ...(o.throughput !== undefined && { throughput: o.throughput }),
          },
        );
        show(account);
      },
    );
  accounts.command('get <username>').action(async (username: string) => {
    show(
      await adminClient().call<AccountView>(
        'GET',
        `/admin/v1/accounts/${encodeURIComponent(username)}`,
        admin(),
      ),
    );
  });
  accounts
    .command('credit <username>')
    .requiredOption(
      '--amount <amount>',
      'added to the balance (negative to take back)',
      signedDecimal,
    )
    .option('--sms-count <n>', 'added to the SMS quota', integer)
    .action(async (username: string, o: { amount: string; smsCount?: number }) => {
      const body = { amount: o.amount, ...(o.smsCount !== undefined && { sms_count: o.smsCount }) };
      show(
        await adminClient().call<AccountView>(
          'POST',
          `/admin/v1/accounts/${encodeURIComponent(username)}/credit`,
          admin(),
          body,
        ),
      );
    });

  accounts
    .command('senders <username>')
    .description('show, replace (--allow, --policy) or remove (--clear) the senders it may use')
    .option(
      '--allow <sender>',
      'a sender it may use: exact, or a glob with * and ? (repeat for several)',
      (value: string, list: string[]) => [...list, value],
      [] as string[],
    )
    .option('--policy <policy>', 'for other senders: refuse or replace (by default_from)')
    .option('--clear', 'remove the list (UNLISTED_SENDERS decides again)')
    .action(async (username: string, o: { allow: string[]; policy?: string; clear?: boolean }) => {
      const path = `/admin/v1/accounts/${encodeURIComponent(username)}/senders`;
      if (o.clear) show(await adminClient().call<SenderRulesView>('DELETE', path, admin()));
      else if (o.allow.length > 0 || o.policy !== undefined)
        show(
          await adminClient().call<SenderRulesView>('PUT', path, admin(), {
            senders: o.allow,
            ...(o.policy !== undefined && { policy: o.policy }),
          }),
        );
      else show(await adminClient().call<SenderRulesView>('GET', path, admin()));
    });
  for (const [verb, description] of [
    ['disable', 'refuse the account at once and hold its batches'],
    ['enable', 'accept the account again and release its held batches'],
  ] as const) {
    accounts
      .command(`${verb} <username>`)
      .description(description)
      .action(async (username: string) => {
        show(
          await adminClient().call<AccountView>(
            'POST',
            `/admin/v1/accounts/${encodeURIComponent(username)}/${verb}`,
            admin(),
          ),
        );
      });
  }
  accounts
    .command('password <username>')
    .description('set a new password; the old one and earlier access tokens stop working')
    .requiredOption('--password <password>', 'the new password (at least 8 characters)')
    .action(async (username: string, o: { password: string }) => {
      show(
        await adminClient().call<AccountView>(
          'POST',
          `/admin/v1/accounts/${encodeURIComponent(username)}/password`,
          admin(),
          { password: o.password },
        ),
      );
    });

  const apps = program
    .command('apps')
    .description('manage applications (client id and secret for tokens)');
  apps
    .command('create <username>')
    .option('--name <name>', 'what the application is for')
    .action(async (username: string, o: { name?: string }) => {
      const body = o.name !== undefined ? { name: o.name } : {};
      show(
        await adminClient().call(
          'POST',
          `/admin/v1/accounts/${encodeURIComponent(username)}/applications`,
          admin(),
          body,
        ),
      );
    });
  apps
    .command('revoke <username> <clientId>')
    .action(async (username: string, clientId: string) => {
      await adminClient().call(
        'DELETE',
        `/admin/v1/accounts/${encodeURIComponent(username)}/applications/${encodeURIComponent(clientId)}`,
        admin(),
      );
      io.print(`revoked ${clientId}`);
    });

  const secrets = program
    .command('callback-secret')
    .description("the secret that signs an account's callbacks (admin token)");
  const secretPath = (username: string) =>
    `/admin/v1/accounts/${encodeURIComponent(username)}/callback-secret`;
  secrets.command('get <username>').action(async (username: string) => {
    show(await adminClient().call('GET', secretPath(username), admin()));
  });
  secrets
    .command('rotate <username>')
    .option(
      '--grace-seconds <n>',
      'how long the previous secret keeps signing (default 86400; 0 ends it now)',
      integer,
    )
    .action(async (username: string, o: { graceSeconds?: number }) => {
      const body = o.graceSeconds !== undefined ? { grace_seconds: o.graceSeconds } : {};
      show(await adminClient().call('POST', secretPath(username), admin(), body));
    });
  apps
    .command('rotate-secret <username> <clientId>')
    .description('replace the secret (shown once); the old one and its tokens stop working')
    .action(async (username: string, clientId: string) => {
      show(
        await adminClient().call(
          'POST',
          `/admin/v1/accounts/${encodeURIComponent(username)}/applications/${encodeURIComponent(clientId)}/secret`,
          admin(),
        ),
      );
    });

  const credentials = (o: { user?: string; password?: string; token?: string }): string => {
    if (o.token) return `Bearer ${o.token}`;
    const user = o.user ?? io.env['SMSGW_USER'];
    const password = o.password ?? io.env['SMSGW_PASSWORD'];
    if (!user || !password)
      throw new InvalidArgumentError(
        'give --user and --password (or SMSGW_USER/SMSGW_PASSWORD), or --token',
      );
    return basicAuth(user, password);
  };
  const clientAuth = (c: Command) =>
    c
      .option('-u, --user <username>', 'account username (or SMSGW_USER)')
      .option('-p, --password <password>', 'account password (or SMSGW_PASSWORD)')
      .option('--token <accessToken>', 'bearer access token instead of a password');

  clientAuth(program.command('send').description('send one SMS'))
    .requiredOption('--to <number>', 'destination, international format')
    .option('--content <text>', 'message text')
    .option('--hex-content <hex>', 'binary content in hexadecimal')
    .option('--from <sender>', 'sender')
    .option('--coding <n>', 'SMPP data_coding', integer)
    .action(
      async (o: {
        to: string;
        content?: string;
        hexContent?: string;
        from?: string;
        coding?: number;
        user?: string;
        password?: string;
        token?: string;
      }) => {
        const body = {
          to: o.to,
          ...(o.content !== undefined && { content: o.content }),
          ...(o.hexContent !== undefined && { 'hex-content': o.hexContent }),
          ...(o.from !== undefined && { from: o.from }),
          ...(o.coding !== undefined && { coding: o.coding }),
        };
        const result = await client().call<SendResult>(
          'POST',
          '/secure/send',
          credentials(o),
          body,
        );
        io.print(result.data);
      },
    );
  clientAuth(program.command('balance').description('show balance and SMS quota')).action(
    async (o: { user?: string; password?: string; token?: string }) => {
      show((await client().call<BalanceResult>('GET', '/secure/balance', credentials(o))).data);
    },
  );

  const batch = program.command('batch').description('send and follow batches');
  clientAuth(
    batch
      .command('send <recipientsCsv>')
      .description('send one text to every recipient of a CSV file and follow the batch'),
  )
    .option('--content <text>', 'message text')
    .option('--hex-content <hex>', 'binary content in hexadecimal')
    .option('--from <sender>', 'sender')
    .option('--schedule-at <when>', '"YYYY-MM-DD HH:MM:SS" (server time) or "<seconds>s"')
    .option('--callback-url <url>', 'called once per message sent')
    .option('--errback-url <url>', 'called once per message failed')
    .option('--no-follow', 'print the batch id and return at once')
    .action(
      async (
        file: string,
        o: {
          content?: string;
          hexContent?: string;
          from?: string;
          scheduleAt?: string;
          callbackUrl?: string;
          errbackUrl?: string;
          follow: boolean;
          user?: string;
          password?: string;
          token?: string;
        },
      ) => {
        const recipients = readRecipients(file);
        if (recipients.length === 0) throw new InvalidArgumentError(`${file} lists no recipients`);
        const auth = credentials(o);
        const body = {
          messages: [
            {
              to: recipients,
              ...(o.content !== undefined && { content: o.content }),
              ...(o.hexContent !== undefined && { 'hex-content': o.hexContent }),
              ...(o.from !== undefined && { from: o.from }),
            },
          ],
          batch_config: {
            ...(o.scheduleAt !== undefined && { schedule_at: o.scheduleAt }),
            ...(o.callbackUrl !== undefined && { callback_url: o.callbackUrl }),
            ...(o.errbackUrl !== undefined && { errback_url: o.errbackUrl }),
          },
        };
        const accepted = (await client().call<BatchResult>('POST', '/secure/sendbatch', auth, body))
          .data;
        io.print(`batch ${accepted.batchId}: ${accepted.messageCount} messages accepted`);
        if (!o.follow) return;
        const final = await followBatch(
          () =>
            client()
              .call<BatchStatus>('GET', `/secure/batches/${accepted.batchId}`, auth)
              .then((r) => r.data),
          io,
        );
        io.print(`batch ${final.batchId} ${final.state}: ${JSON.stringify(final.counts)}`);
      },
    );
  clientAuth(batch.command('status <batchId>')).action(
    async (batchId: string, o: { user?: string; password?: string; token?: string }) => {
      show(
        (
          await client().call<BatchStatus>(
            'GET',
            `/secure/batches/${encodeURIComponent(batchId)}`,
            credentials(o),
          )
        ).data,
      );
    },
  );
  clientAuth(batch.command('cancel <batchId>')).action(
    async (batchId: string, o: { user?: string; password?: string; token?: string }) => {
      show(
        await client().call(
          'DELETE',
          `/secure/batches/${encodeURIComponent(batchId)}`,
          credentials(o),
        ),
      );
    },
  );

  addTwoWayCommands(program, {
    client,
    adminClient,
    admin,
    credentials,
    clientAuth,
    show,
    print: (text) => io.print(text),
  });
  addRoutingCommands(program, { adminClient, admin, show, print: (text) => io.print(text) });
  addAdminCommands(program, { adminClient, admin, show });
  const batches = addBatchAdminCommands(program, { adminClient, admin, show });
  addOperatorCommands(program, {
    client,
    adminClient,
    admin,
    credentials,
    clientAuth,
    env: io.env,
    print: (text) => io.print(text),
    show,
    accounts,
    batches,
  });
  addSmppCommands(program, { adminClient, admin, show });
  const pricingDeps = { adminClient, admin, show, print: (text: string) => io.print(text) };
  addPricingCommands(program, pricingDeps);
  addAccountPricingCommand(accounts, pricingDeps);
  addCdrCommands(program, {
    adminClient,
    admin,
    out: io.out ?? process.stdout,
    progress: io.progress,
  });
  return program;
}
