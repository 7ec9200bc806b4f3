import type { Db, Queryable } from '@smsgw/kit';

/**
 * Statements on `price_lists`, `price_list_versions`, `price_list_rows`, `customer_groups`,
 * `connector_costs` and `pricing_changes` (migrations 040 and 042, docs/billing.md). readPricing
 * also reads `accounts` (each account's group and list), named in accounts.ts;
 * message-stats.ts groupJoin reads the names of `customer_groups`;
 * accounts.ts accountThroughput and sender-rules.ts findSenderRules read a group's defaults;
 * message-search.ts messageStory reads the name and version of the list that priced a message.
 */

export interface PriceListRow {
  id: string;
  name: string;
  currency: string;
  created_at: Date;
}

export interface PriceListVersionRow {
  id: string;
  list_id: string;
  effective_from: Date;
  row_count: number;
  created_by: string;
  created_at: Date;
}

export interface PriceRowInput {
  prefix: string;
  price: string;
  description: string | null;
}

export interface CustomerGroupRow {
  id: string;
  name: string;
  price_list_id: string | null;
  price_list: string | null;
  accounts: number;
  /** Messages per second each of its accounts without a cap of its own may send (0: none). */
  throughput: number;
  /** The sender rules of its accounts without a list of their own; null: none. */
  sender_policy: 'refuse' | 'replace' | null;
  senders: string[];
  created_at: Date;
  updated_at: Date;
}

/** What a group gives its accounts that have none of their own (migration 043). */
export interface GroupDefaults {
  throughput: number;
  senders: { policy: 'refuse' | 'replace'; patterns: string[] } | null;
}

/** Rows a statement writes at most: 100,000 rows go in ten statements of one transaction. */
const ROWS_PER_INSERT = 10_000;

/** Says that something that prices messages changed, so every price book reloads. */
export async function notePricingChange(tx: Queryable): Promise<void> {
  await tx.query('UPDATE pricing_changes SET version = version + 1, changed_at = now() WHERE id');
}

export async function pricingVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    'SELECT version::text AS version FROM pricing_changes WHERE id',
  );
  return rows[0]?.version ?? '0';
}

/** Undefined when a list of that name exists. */
export async function createPriceList(
  db: Queryable,
  name: string,
  currency: string,
): Promise<PriceListRow | undefined> {
  const { rows } = await db.query<PriceListRow>(
    `INSERT INTO price_lists (name, currency) VALUES ($1, $2)
     ON CONFLICT (name) DO NOTHING RETURNING id::text, name, currency, created_at`,
    [name, currency],
  );
  return rows[0];
}

export async function findPriceList(
  db: Queryable,
  name: string,
): Promise<PriceListRow | undefined> {
  const { rows } = await db.query<PriceListRow>(
    'SELECT id::text, name, currency, created_at FROM price_lists WHERE name = $1',
    [name],
  );
  return rows[0];
}

export async function listPriceLists(db: Queryable): Promise<PriceListRow[]> {
  const { rows } = await db.query<PriceListRow>(
    'SELECT id::text, name, currency, created_at FROM price_lists ORDER BY name',
  );
  return rows;
}

/** A list's versions, the newest start first. */
export async function priceListVersions(
  db: Queryable,
  listId: string,
): Promise<PriceListVersionRow[]> {
  const { rows } = await db.query<PriceListVersionRow>(
    `SELECT id::text, list_id::text, effective_from, row_count, created_by, created_at
       FROM price_list_versions WHERE list_id = $1 ORDER BY effective_from DESC`,
    [listId],
  );
  return rows;
}

/**
 * Writes a whole version (in the caller's transaction, which makes it visible all at once) and
 * notes the change; undefined when the list has a version starting at that very time.
 */
export async function insertPriceListVersion(
  tx: Queryable,
  version: {
    listId: string;
    effectiveFrom: Date;
    createdBy: string;
    rows: readonly PriceRowInput[];
  },
): Promise<PriceListVersionRow | undefined> {
  const { rows } = await tx.query<PriceListVersionRow>(
    `INSERT INTO price_list_versions (list_id, effective_from, row_count, created_by)
     VALUES ($1, $2, $3, $4) ON CONFLICT (list_id, effective_from) DO NOTHING
     RETURNING id::text, list_id::text, effective_from, row_count, created_by, created_at`,
    [version.listId, version.effectiveFrom, version.rows.length, version.createdBy],
  );
  const made = rows[0];
  if (!made) return undefined;
  for (let i = 0; i < version.rows.length; i += ROWS_PER_INSERT) {
    const chunk = version.rows.slice(i, i + ROWS_PER_INSERT);
    await tx.query(
      `INSERT INTO price_list_rows (version_id, prefix, price, description)
       SELECT $1, * FROM unnest($2::text[], $3::numeric[], $4::text[])`,
      [
        made.id,
        chunk.map((r) => r.prefix),
        chunk.map((r) => r.price),
        chunk.map((r) => r.description),
      ],
    );
  }
  await notePricingChange(tx);
  return made;
}

/** A version's rows in prefix order, the default row ('*') first. */
export async function priceListRows(
  db: Queryable,
  versionId: string,
): Promise<{ prefix: string; price: string; description: string | null }[]> {
  const { rows } = await db.query<{ prefix: string; price: string; description: string | null }>(
    `SELECT prefix, price::text AS price, description FROM price_list_rows
      WHERE version_id = $1 ORDER BY prefix <> '*', prefix`,
    [versionId],
  );
  return rows;
}

/** A version that has not begun can be taken back; false when there is none such. */
export async function deleteFutureVersion(
  tx: Queryable,
  listId: string,
  versionId: string,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    'DELETE FROM price_list_versions WHERE id = $1 AND list_id = $2 AND effective_from > now()',
    [versionId, listId],
  );
  if (rowCount !== 1) return false;
  await tx.query('DELETE FROM price_list_rows WHERE version_id = $1', [versionId]);
  await notePricingChange(tx);
  return true;
}

export async function listCustomerGroups(db: Queryable): Promise<CustomerGroupRow[]> {
  const { rows } = await db.query<CustomerGroupRow>(`${GROUPS} ORDER BY g.name`);
  return rows;
}

export async function findCustomerGroup(
  db: Queryable,
  name: string,
): Promise<CustomerGroupRow | undefined> {
  const { rows } = await db.query<CustomerGroupRow>(`${GROUPS} WHERE g.name = $1`, [name]);
  return rows[0];
}

const GROUPS = `SELECT g.id::text, g.name, g.price_list_id::text, l.name AS price_list,
       (SELECT count(*)::int FROM accounts a WHERE a.group_id = g.id) AS accounts,
       g.throughput, g.sender_policy, g.senders, g.created_at, g.updated_at
  FROM customer_groups g LEFT JOIN price_lists l ON l.id = g.price_list_id`;

/** Makes the group or gives it this list (null: none) and these defaults, and notes the change. */
export async function putCustomerGroup(
  tx: Queryable,
  name: string,
  priceListId: string | null,
  defaults: GroupDefaults = { throughput: 0, senders: null },
): Promise<void> {
  await tx.query(
    `INSERT INTO customer_groups (name, price_list_id, throughput, sender_policy, senders)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO UPDATE SET price_list_id = EXCLUDED.price_list_id,
        throughput = EXCLUDED.throughput, sender_policy = EXCLUDED.sender_policy,
        senders = EXCLUDED.senders, updated_at = now()`,
    [
      name,
      priceListId,
      defaults.throughput,
      defaults.senders?.policy ?? null,
      defaults.senders?.patterns ?? [],
    ],
  );
  await notePricingChange(tx);
}

/** False when no such group exists, or accounts still belong to it (nothing deleted then). */
export async function deleteCustomerGroup(tx: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `DELETE FROM customer_groups g WHERE g.name = $1
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.group_id = g.id)`,
    [name],
  );
  return rowCount === 1;
}

/** A connector's supplier prices: the list that gives what its messages cost us. */
export interface ConnectorCostRow {
  connector: string;
  price_list: string;
  currency: string;
  updated_at: Date;
}

export async function listConnectorCosts(db: Queryable): Promise<ConnectorCostRow[]> {
  const { rows } = await db.query<ConnectorCostRow>(
    `SELECT c.connector, l.name AS price_list, l.currency, c.updated_at
       FROM connector_costs c JOIN price_lists l ON l.id = c.price_list_id ORDER BY c.connector`,
  );
  return rows;
}

/** Gives the connector this list of supplier prices (null: none), and notes the change. */
export async function putConnectorCost(
  tx: Queryable,
  connector: string,
  priceListId: string | null,
): Promise<void> {
  if (priceListId === null) {
    await tx.query('DELETE FROM connector_costs WHERE connector = $1', [connector]);
  } else {
    await tx.query(
      `INSERT INTO connector_costs (connector, price_list_id) VALUES ($1, $2)
       ON CONFLICT (connector) DO UPDATE SET price_list_id = EXCLUDED.price_list_id, updated_at = now()`,
      [connector, priceListId],
    );
  }
  await notePricingChange(tx);
}

/** Which lists a price book holds: those that price accounts, or the connectors' cost lists. */
export type PricingScope = 'prices' | 'costs';

/**
 * What every price book holds: the versions in effect or to come, which list prices whom, and
 * which list gives each connector's costs.
 */
export interface PricingSnapshot {
  versions: { id: string; list_id: string; effective_from: Date }[];
  rows: { version_id: string; prefix: string; price: string }[];
  accounts: { account_id: string; list_id: string }[];
  connectors: { connector: string; list_id: string }[];
  /** Each account in a group, with the group's name (routes may serve groups). */
  groups: { account_id: string; group: string }[];
}

/**
 * The version each list of the scope has in effect now, those that begin later, and their rows;
 * for `prices` each account a list prices (its own, else its group's) and each account's group,
 * for `costs` each connector's cost list. Read in one snapshot, so they agree.
 */
export async function loadPricing(
  db: Db,
  /** `prices`: the lists that price accounts, for acceptance; `costs`: the connectors' cost lists, for a dispatcher. */
  scope: PricingScope = 'prices',
): Promise<PricingSnapshot> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return readPricing(tx, scope);
  });
}

async function readPricing(db: Queryable, scope: PricingScope): Promise<PricingSnapshot> {
  const lists =
    scope === 'costs'
      ? 'SELECT price_list_id FROM connector_costs'
      : `SELECT price_list_id FROM accounts WHERE price_list_id IS NOT NULL
         UNION SELECT price_list_id FROM customer_groups WHERE price_list_id IS NOT NULL`;
  const versions = await db.query<PricingSnapshot['versions'][number]>(
    `SELECT v.id::text, v.list_id::text, v.effective_from FROM price_list_versions v
      WHERE v.list_id IN (${lists})
        AND (v.effective_from > now()
             OR v.effective_from = (SELECT max(w.effective_from) FROM price_list_versions w
                                     WHERE w.list_id = v.list_id AND w.effective_from <= now()))`,
  );
  const ids = versions.rows.map((v) => v.id);
  // One row per version with its prefixes and prices joined: embedded mode carries each row out of
  // its worker one by one, so two strings cost less than 100,000 rows (docs/billing.md).
  const joined = await db.query<{ version_id: string; prefixes: string; prices: string }>(
    `SELECT version_id::text, string_agg(prefix, ',' ORDER BY prefix) AS prefixes,
            string_agg(price::text, ',' ORDER BY prefix) AS prices
       FROM price_list_rows WHERE version_id = ANY($1::bigint[]) GROUP BY version_id`,
    [ids],
  );
  const rows = {
    rows: joined.rows.flatMap((v) => {
      const prices = v.prices.split(',');
      return v.prefixes
        .split(',')
        .map((prefix, i) => ({ version_id: v.version_id, prefix, price: prices[i] }));
    }),
  };
  const accounts =
    scope === 'costs'
      ? { rows: [] }
      : await db.query<PricingSnapshot['accounts'][number]>(
          `SELECT a.id::text AS account_id, COALESCE(a.price_list_id, g.price_list_id)::text AS list_id
             FROM accounts a LEFT JOIN customer_groups g ON g.id = a.group_id
            WHERE a.price_list_id IS NOT NULL OR g.price_list_id IS NOT NULL`,
        );
  const groups =
    scope === 'costs'
      ? { rows: [] }
      : await db.query<PricingSnapshot['groups'][number]>(
          `SELECT a.id::text AS account_id, g.name AS "group"
             FROM accounts a JOIN customer_groups g ON g.id = a.group_id`,
        );
  const connectors =
    scope === 'prices'
      ? { rows: [] }
      : await db.query<PricingSnapshot['connectors'][number]>(
          'SELECT connector, price_list_id::text AS list_id FROM connector_costs',
        );
  return {
    versions: versions.rows,
    rows: rows.rows,
    accounts: accounts.rows,
    connectors: connectors.rows,
    groups: groups.rows,
  };
}
