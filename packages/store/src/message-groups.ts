import type { MessageResultEvent } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';
import {
  claimMessages,
  markSubmitted,
  type ClaimedMessageRow,
  type SubmittedMessage,
} from './messages';
import { PartitionLocator } from './partition-locator';

/** Postgres's error code for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/**
 * Ids placed in the partitions that hold them (MessageGroups.place): the list of partitions is
 * read before the transaction that uses them.
 */
export interface PlacedIds {
  readonly groups: ReadonlyMap<string | null, readonly string[]>;
}

/**
 * The submission's group statements on `messages` (claim, answers), each run on the partition that
 * holds its messages (PartitionLocator), so that it keeps its plan. Which partition, and what to do
 * when one is gone, is the store's business: callers hand in ids and get rows.
 */
export class MessageGroups {
  constructor(
    private readonly db: Queryable,
    private readonly partitions = new PartitionLocator(db),
  ) {}

  /**
   * The ids placed in their partitions. Called before the transaction that claims them: reading
   * the list inside it would wait for it on PGlite's one session.
   */
  async place(ids: readonly string[]): Promise<PlacedIds> {
    return { groups: await this.partitions.group(ids, (id) => id) };
  }

  /**
   * Moves the waiting ones of the placed messages to `submitting` inside the transaction `tx`
   * (claimMessages), one statement per partition (nearly always one). A named partition that is
   * gone (dropped since the list was read) fails the transaction and makes the list be read
   * again, so that the job's redelivery claims with the new list.
   */
  async claim(tx: Queryable, placed: PlacedIds, connector: string): Promise<ClaimedMessageRow[]> {
    return this.byPartition(placed.groups, false, (group, partition) =>
      claimMessages(tx, group, connector, partition),
    );
  }

  /**
   * Records the SMSC's answers of a group (markSubmitted), one statement per partition. Each is a
   * statement of its own, so one whose named partition is gone runs again on `messages`.
   */
  async markSubmitted(
    messages: readonly SubmittedMessage[],
    connector: string,
  ): Promise<{ id: string; payload: MessageResultEvent | null }[]> {
    return this.byPartition(
      await this.partitions.group(messages, (m) => m.id),
      true,
      (group, partition) => markSubmitted(this.db, group, connector, partition),
    );
  }

  /**
   * Runs a group statement once per partition its messages are in, naming the partition. A named
   * partition that is gone makes the list be read again; with `retry` the statement then runs
   * again on `messages`, else its error is thrown.
   */
  private async byPartition<T, R>(
    groups: ReadonlyMap<string | null, readonly T[]>,
    retry: boolean,
    run: (items: readonly T[], partition: string | null) => Promise<R[]>,
  ): Promise<R[]> {
    const results: R[] = [];
    for (const [partition, group] of groups) {
      try {
        results.push(...(await run(group, partition)));
      } catch (err) {
        if ((err as { code?: unknown }).code !== UNDEFINED_TABLE || partition === null) throw err;
        this.partitions.invalidate();
        if (!retry) throw err;
        results.push(...(await run(group, null)));
      }
    }
    return results;
  }
}
