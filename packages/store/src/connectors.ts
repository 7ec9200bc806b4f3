import type { Queryable, SecretBox } from '@smsgw/kit';

/**
 * Statements on `connectors` (migration 017). The password of a connector's URL is stored sealed
 * (migration 026): these functions take and give the whole URL, and seal or open it with `box`.
 * A password is sealed for its row: the connector's name, the column, and the URL it is sent to
 * (the `url` column), so a sealed value copied to another row, or a URL pointed elsewhere in the
 * database, fails to open.
 */

export interface ConnectorRow {
  name: string;
  url: string;
  binds: number;
  bind_mode: 'transceiver' | 'transmitter_receiver';
  desired_state: 'started' | 'stopped';
  updated_at: Date;
}

type StoredRow = ConnectorRow & { password_sealed: string | null };

const COLUMNS = `name, url, password_sealed, binds, bind_mode, desired_state, updated_at`;

/** Where a connector's password is sealed for: its row, its column, its URL without it. */
function passwordPlace(name: string, url: string): string {
  return JSON.stringify(['connectors', name, 'password_sealed', url]);
}

/** The URL with its password taken out, and the password sealed; none to seal: null. */
function sealUrl(
  box: SecretBox,
  name: string,
  url: string,
): { url: string; sealed: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, sealed: null };
  }
  if (parsed.password === '') return { url, sealed: null };
  const password = parsed.password;
  parsed.password = '';
  const stored = parsed.toString();
  return { url: stored, sealed: box.seal(password, passwordPlace(name, stored)) };
}

/** A URL as openRow gives it back, to compare with one given. */
function normalized(url: string): string {
  try {
    return new URL(url).toString();
  } catch {
    return url;
  }
}

/** The URL as given: the sealed password put back; a row without one holds its URL whole. */
function openRow(box: SecretBox, row: StoredRow): ConnectorRow {
  const { password_sealed: sealed, ...rest } = row;
  if (sealed === null) return { ...rest, url: normalized(row.url) };
  const parsed = new URL(row.url);
  parsed.password = box.open(sealed, passwordPlace(row.name, row.url));
  return { ...rest, url: parsed.toString() };
}

/** Every connector, by name. */
export async function listConnectors(db: Queryable, box: SecretBox): Promise<ConnectorRow[]> {
  const { rows } = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM connectors ORDER BY name`);
  return rows.map((row) => openRow(box, row));
}

/**
 * Seals the passwords of rows written before they were sealed (their URL holds the password), and
 * seals again, for their row, those sealed the old way (v1, without a place) unless `resealV1` is
 * false (a release that reads only v1 may still run beside this one); updated_at stays, as the URL
 * a dispatcher opens is the same. A v1 value that does not open is left for listConnectors to
 * refuse. Returns how many were sealed.
 */
export async function sealConnectorPasswords(
  db: Queryable,
  box: SecretBox,
  options: { resealV1: boolean } = { resealV1: true },
): Promise<number> {
  const { rows } = await db.query<{ name: string; url: string; password_sealed: string | null }>(
    `SELECT name, url, password_sealed FROM connectors
      WHERE password_sealed IS NULL OR ($1 AND password_sealed LIKE 'v1:%')`,
    [options.resealV1],
  );
  let sealed = 0;
  for (const row of rows) {
    let url = row.url;
    if (row.password_sealed !== null) {
      let password: string;
      try {
        password = box.open(row.password_sealed, passwordPlace(row.name, row.url));
      } catch {
        continue;
      }
      const parsed = new URL(row.url);
      parsed.password = password;
      url = parsed.toString();
    }
    const stored = sealUrl(box, row.name, url);
    if (stored.sealed === null) continue;
    // Only if nobody changed the row meanwhile.
    const { rowCount } = await db.query(
      `UPDATE connectors SET url = $3, password_sealed = $4
        WHERE name = $1 AND url = $2 AND password_sealed IS NOT DISTINCT FROM $5`,
      [row.name, row.url, stored.url, stored.sealed, row.password_sealed],
    );
    sealed += rowCount ?? 0;
  }
  return sealed;
}

/**
 * Creates the connector, or brings its URL and binds up to date: SMSC_URL and SMSC_BINDS define
 * the `default` connector at every dispatcher's start. updated_at moves only when they changed, so
 * dispatchers do not restart its sessions for nothing.
 */
export async function ensureConnector(
  db: Queryable,
  box: SecretBox,
  name: string,
  url: string,
  binds: number,
): Promise<void> {
  // A sealed password differs at each sealing: compare what it opens to, not the columns.
  const current = await getConnector(db, name, box).catch(() => undefined);
  if (current && current.url === normalized(url) && current.binds === binds) return;
  const stored = sealUrl(box, name, url);
  await db.query(
    `INSERT INTO connectors (name, url, password_sealed, binds) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO UPDATE
        SET url = EXCLUDED.url, password_sealed = EXCLUDED.password_sealed,
            binds = EXCLUDED.binds, updated_at = now()`,
    [name, stored.url, stored.sealed, binds],
  );
}

/**
 * One connector; without `box` (where only its existence or settings matter) its URL comes without
 * a sealed password.
 */
export async function getConnector(
  db: Queryable,
  name: string,
  box?: SecretBox,
): Promise<ConnectorRow | undefined> {
  const { rows } = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM connectors WHERE name = $1`, [
    name,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  if (box) return openRow(box, row);
  const { password_sealed: _sealed, ...rest } = row;
  return rest;
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
  box: SecretBox,
  c: Pick<ConnectorRow, 'name' | 'url' | 'binds' | 'bind_mode'>,
): Promise<boolean> {
  const stored = sealUrl(box, c.name, c.url);
  const { rowCount } = await db.query(
    `INSERT INTO connectors (name, url, password_sealed, binds, bind_mode) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO NOTHING`,
    [c.name, stored.url, stored.sealed, c.binds, c.bind_mode],
  );
  return rowCount === 1;
}

/**
 * Changes the given fields; false when there is no such connector. updated_at moves only when a
 * value changed, so it tells the operator when the connector last really changed.
 */
export async function updateConnector(
  db: Queryable,
  box: SecretBox,
  name: string,
  patch: Partial<Pick<ConnectorRow, 'url' | 'binds' | 'bind_mode'>>,
): Promise<boolean> {
  // The same URL sealed again would look changed: a URL equal to the stored one is no change.
  let url = patch.url;
  if (url !== undefined && (await getConnector(db, name, box))?.url === normalized(url))
    url = undefined;
  const stored = url === undefined ? undefined : sealUrl(box, name, url);
  const { rowCount } = await db.query(
    `UPDATE connectors
        SET url = COALESCE($2, url),
            password_sealed = CASE WHEN $2::text IS NULL THEN password_sealed ELSE $5 END,
            binds = COALESCE($3, binds), bind_mode = COALESCE($4, bind_mode),
            updated_at = CASE
              WHEN $2::text IS NOT NULL
                OR (binds, bind_mode) IS DISTINCT FROM (COALESCE($3, binds), COALESCE($4, bind_mode))
              THEN now() ELSE updated_at END
      WHERE name = $1`,
    [
      name,
      stored?.url ?? null,
      patch.binds ?? null,
      patch.bind_mode ?? null,
      stored?.sealed ?? null,
    ],
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

/**
 * Sets (or with null clears) the SHA-256 of the secret an HTTP upstream presents as this connector
 * (migration 024); false when there is no such connector.
 */
export async function setConnectorInboundSecret(
  db: Queryable,
  name: string,
  secretHash: string | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connectors SET inbound_secret_hash = $2 WHERE name = $1`,
    [name, secretHash],
  );
  return rowCount === 1;
}

/** Each connector that has an inbound secret, with its hash: the HTTP inbound endpoint's keys. */
export async function connectorInboundSecrets(db: Queryable): Promise<Map<string, string>> {
  const { rows } = await db.query<{ name: string; inbound_secret_hash: string }>(
    `SELECT name, inbound_secret_hash FROM connectors WHERE inbound_secret_hash IS NOT NULL`,
  );
  return new Map(rows.map((r) => [r.name, r.inbound_secret_hash]));
}

/** A stored TLV: its tag and its value's octets in hexadecimal (migration 031). */
export interface StoredTlv {
  tag: number;
  value: string;
}

/** Each connector's default TLVs, of the connectors that have some. */
export async function connectorTlvs(db: Queryable): Promise<Map<string, StoredTlv[]>> {
  const { rows } = await db.query<{ name: string; tlvs: StoredTlv[] }>(
    `SELECT name, tlvs FROM connectors WHERE tlvs <> '[]'::jsonb`,
  );
  return new Map(rows.map((r) => [r.name, r.tlvs]));
}

/** Replaces the connector's default TLVs; false when there is no such connector. */
export async function setConnectorTlvs(
  db: Queryable,
  name: string,
  tlvs: readonly StoredTlv[],
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE connectors SET tlvs = $2::jsonb, tlvs_updated_at = clock_timestamp() WHERE name = $1`,
    [name, JSON.stringify(tlvs)],
  );
  return rowCount === 1;
}

/** Changes whenever a connector's TLVs change (or a connector with TLVs goes). */
export async function connectorTlvsVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT count(*)::text || '/' || COALESCE(max(tlvs_updated_at)::text, '') AS version
       FROM connectors WHERE tlvs <> '[]'::jsonb OR tlvs_updated_at IS NOT NULL`,
  );
  return rows[0].version;
}
