import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { CDR_FORMATS, CDR_PER, UsernameSchema } from '@smsgw/contracts';
import type { GatewayClient } from './gateway-client';

export interface CdrCommandDeps {
  adminClient(): GatewayClient;
  admin(): string;
  /** Where the export is written (stdout). */
  out: NodeJS.WritableStream;
  /** Where the progress bar is drawn (stderr in a terminal; nothing when absent). */
  progress?: NodeJS.WritableStream | undefined;
}

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`expected ${values.join(' or ')}`);
    return value as T;
  };

const username = (value: string): string => {
  if (!UsernameSchema.safeParse(value).success)
    throw new InvalidArgumentError('expected an account username');
  return value;
};

/**
 * Passes the export through as it is and counts its rows: the line ends outside quotes (CSV may
 * quote a line end within a field), less the CSV's header.
 */
class RowCounter extends Transform {
  rows = 0;
  private quoted = false;
  private header: boolean;

  constructor(
    private readonly csv: boolean,
    private readonly onRows: (rows: number) => void,
  ) {
    super();
    this.header = csv;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const byte of chunk) {
      if (this.csv && byte === 0x22) this.quoted = !this.quoted;
      else if (byte === 0x0a && !this.quoted) {
        if (this.header) this.header = false;
        else this.rows += 1;
      }
    }
    this.onRows(this.rows);
    this.push(chunk);
    done();
  }
}

/** `smsgw cdr export`: the CDRs of a time range, streamed to stdout as the gateway sends them. */
export function addCdrCommands(program: Command, d: CdrCommandDeps): void {
  const cdr = program.command('cdr').description('call detail records for billing (admin token)');
  cdr
    .command('export')
    .description(
      'the CDRs of the messages accepted in [since, until), to stdout (docs/operators.md, CDRs)',
    )
    .requiredOption('--since <time>', 'ISO 8601 time with offset, e.g. 2026-03-01T00:00:00Z')
    .requiredOption('--until <time>', 'ISO 8601 time with offset, after since')
    .option('--account <username>', "one account's only", username)
    .option('--format <format>', 'csv (default) or ndjson', oneOf(CDR_FORMATS))
    .option('--per <row>', 'one row per message (default) or per part', oneOf(CDR_PER))
    .action(
      async (o: {
        since: string;
        until: string;
        account?: string;
        format?: string;
        per?: string;
      }) => {
        const query = new URLSearchParams({ since: o.since, until: o.until });
        if (o.account !== undefined) query.set('account', o.account);
        if (o.format !== undefined) query.set('format', o.format);
        if (o.per !== undefined) query.set('per', o.per);
        const body = await d
          .adminClient()
          .download(`/admin/v1/cdrs?${query.toString()}`, d.admin());
        const bar = d.progress
          ? new SingleBar(
              {
                stream: d.progress,
                format: '{value} rows | {speed} rows/s',
                hideCursor: true,
                noTTYOutput: true,
                notTTYSchedule: 200,
              },
              Presets.shades_classic,
            )
          : undefined;
        const started = Date.now();
        bar?.start(0, 0, { speed: 0 });
        const counter = new RowCounter((o.format ?? 'csv') === 'csv', (rows) => {
          const seconds = (Date.now() - started) / 1000;
          bar?.update(rows, { speed: seconds > 0 ? Math.round(rows / seconds) : 0 });
        });
        try {
          await pipeline(Readable.fromWeb(body), counter, d.out, {
            end: false,
          });
        } finally {
          bar?.stop();
        }
      },
    );
}
