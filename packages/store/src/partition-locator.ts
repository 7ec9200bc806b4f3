import { timeIdFloor, type Queryable } from '@smsgw/kit';
import { listMessagePartitions } from './message-partitions';

/** How long the list of partitions is trusted before it is read again. */
export const PARTITION_LIST_TTL_MS = 60_000;

interface Period {
  suffix: string;
  /** The first id of the period, and the first id after it (ids compare as their text). */
  lo: string;
  hi: string;
}

/**
 * Which partition of `messages` holds a message, told from its time-ordered id (docs/retention.md),
 * so the group statements of MessageGroups (message-groups.ts) can name that table and keep their
 * plans instead of being planned at each call. Partitions are added a period ahead and dropped only when past retention,
 * so a list a minute old is right for every message in flight; an id it does not place (a period
 * added since, a row in the default partition) goes to `messages` as before.
 */
export class PartitionLocator {
  private periods: Period[] = [];
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = PARTITION_LIST_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The ids grouped by the partition that holds them (null: not placed), in their given order. */
  async group<T>(items: readonly T[], idOf: (item: T) => string): Promise<Map<string | null, T[]>> {
    await this.fresh();
    const groups = new Map<string | null, T[]>();
    for (const item of items) {
      const suffix = this.suffixOf(idOf(item));
      const group = groups.get(suffix);
      if (group) group.push(item);
      else groups.set(suffix, [item]);
    }
    return groups;
  }

  /** Forgets the list, so the next group reads it again (a named partition was gone). */
  invalidate(): void {
    this.loadedAt = -Infinity;
  }

  private suffixOf(id: string): string | null {
    const key = id.toLowerCase();
    for (const p of this.periods) if (key >= p.lo && key < p.hi) return p.suffix;
    return null;
  }

  private async fresh(): Promise<void> {
    if (this.now() - this.loadedAt < this.ttlMs) return;
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    await this.loading;
  }

  private async load(): Promise<void> {
    const rows = await listMessagePartitions(this.db);
    this.periods = rows.map((r) => ({
      suffix: r.suffix,
      lo: timeIdFloor(r.from_at),
      hi: timeIdFloor(r.to_at),
    }));
    this.loadedAt = this.now();
  }
}
