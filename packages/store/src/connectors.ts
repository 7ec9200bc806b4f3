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
