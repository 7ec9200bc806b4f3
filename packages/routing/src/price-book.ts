import { DEFAULT_PRICE_PREFIX } from '@smsgw/contracts';
import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import { loadPricing, pricingVersion, type PricingScope, type PricingSnapshot } from '@smsgw/store';

/** E.164 numbers have at most 15 digits, and so have prefixes. */
const MAX_PREFIX = 15;

/** One version's prices: prefix → price, and the lengths its prefixes have, longest first. */
class PriceTable {
  private readonly lengths: number[];
  /** The lowest price it lists, for a credit check that must not refuse what it would accept. */
  readonly lowest: string | undefined;

  constructor(
    readonly versionId: string,
    readonly effectiveFrom: number,
    private readonly prices: ReadonlyMap<string, string>,
  ) {
    this.lengths = [
      ...new Set([...prices.keys()].filter((p) => p !== DEFAULT_PRICE_PREFIX).map((p) => p.length)),
    ].sort((a, b) => b - a);
    let lowest: string | undefined;
    for (const price of prices.values())
      if (lowest === undefined || Number(price) < Number(lowest)) lowest = price;
    this.lowest = lowest;
  }

  /** The longest prefix's price, else the default row's; undefined when neither is there. */
  priceOf(to: string): string | undefined {
    for (const length of this.lengths) {
      if (length > to.length || length > MAX_PREFIX) continue;
      const price = this.prices.get(to.slice(0, length));
      if (price !== undefined) return price;
    }
    return this.prices.get(DEFAULT_PRICE_PREFIX);
  }
}

/** A message's price from a list: the list's version that priced it, and the price of a part. */
export interface ListedPrice {
  price: string;
  versionId: string;
}

export class PricesNotLoadedError extends Error {
  override name = 'PricesNotLoadedError';
}

/**
 * Which price list prices which account and which costs each connector, and each list's versions
 * in effect or to come, held in
 * memory (docs/billing.md): a message's price is a lookup of at most 15 map reads, never a query.
 * Reloaded within `refreshMs` of a change on every process that accepts messages; a version whose
 * start comes takes over at that moment, without a reload.
 */
export class PriceBook {
  private accounts = new Map<string, string>();
  /** Each connector's list of supplier prices. */
  private connectors = new Map<string, string>();
  /** Each account's customer group by name, for routes that serve groups. */
  private groups = new Map<string, string>();
  /** Each list's versions, the latest start first. */
  private lists = new Map<string, PriceTable[]>();
  private version: string | undefined;
  private loaded = false;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: {
      refreshMs: number;
      /** `costs`: the connectors' cost lists, for a dispatcher; the lists that price accounts by default. */
      scope?: PricingScope;
    },
  ) {
    this.loop = new PollingLoop(() => this.refresh(), logger, 'reloading the price lists');
  }

  start(): void {
    this.loop.start(this.options.refreshMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  get ready(): boolean {
    return this.loaded;
  }

  async refresh(): Promise<void> {
    const version = await pricingVersion(this.db);
    if (version === this.version) return;
    const started = Date.now();
    this.install(await loadPricing(this.db, this.options.scope));
    this.version = version;
    this.logger.info(
      { lists: this.lists.size, accounts: this.accounts.size, ms: Date.now() - started },
      'price lists loaded',
    );
  }

  /** Holds this snapshot (what a refresh reads); the benchmarks give one of their own. */
  install(snapshot: PricingSnapshot): void {
    const byVersion = new Map<string, Map<string, string>>();
    for (const row of snapshot.rows) {
      let prices = byVersion.get(row.version_id);
      if (!prices) byVersion.set(row.version_id, (prices = new Map<string, string>()));
      prices.set(row.prefix, row.price);
    }
    const lists = new Map<string, PriceTable[]>();
    for (const v of snapshot.versions) {
      const table = new PriceTable(
        v.id,
        v.effective_from.getTime(),
        byVersion.get(v.id) ?? new Map(),
      );
      const list = lists.get(v.list_id);
      if (list) list.push(table);
      else lists.set(v.list_id, [table]);
    }
    for (const list of lists.values()) list.sort((a, b) => b.effectiveFrom - a.effectiveFrom);
    this.lists = lists;
    this.accounts = new Map(snapshot.accounts.map((a) => [a.account_id, a.list_id]));
    this.connectors = new Map(snapshot.connectors.map((c) => [c.connector, c.list_id]));
    this.groups = new Map(snapshot.groups.map((g) => [g.account_id, g.group]));
    this.loaded = true;
  }

  /** The account's customer group, or null; the routes that serve groups read it. */
  groupOf(accountId: string): string | null {
    if (!this.loaded) throw new PricesNotLoadedError('the price lists have not been read yet');
    return this.groups.get(accountId) ?? null;
  }

  /**
   * The lowest price a list that prices this account sets, over its versions now and to come;
   * undefined when no list prices it.
   */
  lowestPriceFor(accountId: string): string | undefined {
    const listId = this.accounts.get(accountId);
    if (listId === undefined) return undefined;
    let lowest: string | undefined;
    for (const table of this.lists.get(listId) ?? [])
      if (
        table.lowest !== undefined &&
        (lowest === undefined || Number(table.lowest) < Number(lowest))
      )
        lowest = table.lowest;
    return lowest;
  }

  /**
   * The price of one part of a message of this account to `to` at `at`: undefined when no list
   * prices the account (its route's price or its rate apply), `unlisted` when its list has no
   * price for the destination and no default row (the message is refused).
   */
  priceFor(
    accountId: string,
    to: string,
    at: number = Date.now(),
  ): ListedPrice | 'unlisted' | undefined {
    if (!this.loaded) throw new PricesNotLoadedError('the price lists have not been read yet');
    const listId = this.accounts.get(accountId);
    if (listId === undefined) return undefined;
    return this.lookup(listId, to, at) ?? 'unlisted';
  }

  /**
   * What one part of a message to `to` costs us through this connector at `at` (its supplier's
   * list): undefined when the connector has no cost list or it does not price the destination.
   */
  costFor(connector: string, to: string, at: number = Date.now()): ListedPrice | undefined {
    if (!this.loaded) throw new PricesNotLoadedError('the price lists have not been read yet');
    const listId = this.connectors.get(connector);
    return listId === undefined ? undefined : this.lookup(listId, to, at);
  }

  private lookup(listId: string, to: string, at: number): ListedPrice | undefined {
    const table = this.lists.get(listId)?.find((t) => t.effectiveFrom <= at);
    const price = table?.priceOf(to);
    return table && price !== undefined ? { price, versionId: table.versionId } : undefined;
  }
}
