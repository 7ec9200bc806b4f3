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
 * Creates the connector, or brings its URL up to date: SMSC_URL defines the `default` connector at
 * every dispatcher's start. updated_at moves only when the URL changed, so dispatchers do not
 * restart its sessions for nothing.
 */
export async function ensureConnector(db: Queryable, name: string, url: string): Promise<void> {
  await db.query(
    `INSERT INTO connectors (name, url) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, updated_at = now()
      WHERE connectors.url IS DISTINCT FROM EXCLUDED.url`,
    [name, url],
  );
}
