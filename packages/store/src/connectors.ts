import type { Queryable } from '@smsgw/kit';

/** Statements on `connectors` (migration 017). */

export interface ConnectorRow {
  name: string;
  url: string;
  binds: number;
  bind_mode: 'transceiver' | 'transmitter_receiver';
  desired_state: 'started' | 'stopped';
  updated_at: Date;
}

/** Every connector, by name. */
export async function listConnectors(db: Queryable): Promise<ConnectorRow[]> {
  const { rows } = await db.query<ConnectorRow>(
    `SELECT name, url, binds, bind_mode, desired_state, updated_at FROM connectors ORDER BY name`,
  );
  return rows;
}

/**
 * Creates the connector, or brings its URL and binds up to date: SMSC_URL and SMSC_BINDS define
 * the `default` connector at every dispatcher's start. updated_at moves only when they changed, so
 * dispatchers do not restart its sessions for nothing.
 */
export async function ensureConnector(
  db: Queryable,
  name: string,
  url: string,
  binds: number,
): Promise<void> {
  await db.query(
    `INSERT INTO connectors (name, url, binds) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, binds = EXCLUDED.binds, updated_at = now()
      WHERE connectors.url IS DISTINCT FROM EXCLUDED.url OR connectors.binds <> EXCLUDED.binds`,
    [name, url, binds],
  );
}

export async function getConnector(db: Queryable, name: string): Promise<ConnectorRow | undefined> {
  const { rows } = await db.query<ConnectorRow>(
    `SELECT name, url, binds, bind_mode, desired_state, updated_at FROM connectors WHERE name = $1`,
    [name],
  );
  return rows[0];
}

/**
 * The names among `names` that are connectors, their rows locked until the transaction ends:
 * `share` keeps them from being deleted while a route naming them is stored; `update` keeps a
 * route from naming one while it is being deleted.
 */
export async function lockConnectors(
  db: Queryable,
  names: readonly string[],
  mode: 'share' | 'update',
): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM connectors WHERE name = ANY($1::text[]) ORDER BY name FOR ${mode === 'share' ? 'SHARE' : 'UPDATE'}`,
    [names],
  );
  return rows.map((r) => r.name);
}

/** false when a connector of that name exists already. */
export async function insertConnector(
  db: Queryable,
  c: Pick<ConnectorRow, 'name' | 'url' | 'binds' | 'bind_mode'>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO connectors (name, url, binds, bind_mode) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
    [c.name, c.url, c.binds, c.bind_mode],
  );
  return rowCount === 1;
}

/**
 * Changes the given fields; false when there is no such connector. updated_at moves only when a
 * value changed, so it tells the operator when the connector last really changed.
 */
export async function updateConnector(
  db: Queryable,
  name: string,
  patch: Partial<Pick<ConnectorRow, 'url' | 'binds' | 'bind_mode'>>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connectors
        SET url = COALESCE($2, url), binds = COALESCE($3, binds), bind_mode = COALESCE($4, bind_mode),
            updated_at = CASE
              WHEN (url, binds, bind_mode) IS DISTINCT FROM (COALESCE($2, url), COALESCE($3, binds), COALESCE($4, bind_mode))
              THEN now() ELSE updated_at END
      WHERE name = $1`,
    [name, patch.url ?? null, patch.binds ?? null, patch.bind_mode ?? null],
  );
  return rowCount === 1;
}

/** Stop (unbind and hold its traffic) or start a connector; false when there is no such connector. */
export async function setDesiredState(
  db: Queryable,
  name: string,
  state: ConnectorRow['desired_state'],
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connectors
        SET desired_state = $2,
            updated_at = CASE WHEN desired_state <> $2 THEN now() ELSE updated_at END
      WHERE name = $1`,
    [name, state],
  );
  return rowCount === 1;
}

/** false when there was no such connector. */
export async function deleteConnector(db: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM connectors WHERE name = $1`, [name]);
  return rowCount === 1;
}
