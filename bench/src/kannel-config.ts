/** Where Kannel's records of delivery reports are kept: in memory, or in a Postgres table. */
export type KannelDlrStorage = 'internal' | 'pgsql';

export interface KannelPorts {
  admin: number;
  /** Where smsbox connects to bearerbox. */
  smsbox: number;
  /** smsbox's HTTP port of /cgi-bin/sendsms. */
  sendsms: number;
  /** The SMSC's SMPP port (the simulator). */
  smsc: number;
}

export const KANNEL_USER = 'bench';
export const KANNEL_PASSWORD = 'bench-password';
/** The SMPP window: Kannel's max-pending-submits, the dispatcher's `window` of the same run. */
export const KANNEL_WINDOW = 100;

/** The database Kannel's `pgsql` storage writes to: a database of its own on the shared server. */
export interface KannelDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
  name: string;
}

/**
 * Kannel 1.4.5's configuration for one bench side, in the groups its user guide names
 * (userguide.xml, "Core configuration", "SMSC configuration", "Smsbox configuration", "SendSMS
 * user configurations", "Delivery Report storage"):
 * - `group = core`: `admin-port`, `smsbox-port`, and `dlr-storage` ("Supported types are:
 *   internal, mysql, pgsql, sdb, mssql and oracle. By default this is set to 'internal'.");
 *   `store-type = file` with `store-location` keeps its accepted messages in a file;
 * - `group = smsc` with `smsc = smpp`: `host`, `port`, `transceiver-mode = true` (one bind, as the
 *   dispatcher's), `smsc-username`/`smsc-password`, `msg-id-type = 0x01` ("0x01 deliver_sm
 *   decimal, submit_sm_resp hex", the simulator's default), `max-pending-submits` (the window);
 * - `group = smsbox`: `bearerbox-host`, `bearerbox-port`, `sendsms-port`;
 * - `group = sendsms-user`: `username`, `password`, `max-messages = 1` (single-part messages);
 * - for `pgsql`: `group = pgsql-connection` (`id`, `host`, `port`, `username`, `password`,
 *   `database`, `max-connections`) and `group = dlr-db` (`id`, `table`, and the `field-smsc`,
 *   `field-timestamp`, `field-destination`, `field-source`, `field-service`, `field-url`,
 *   `field-mask`, `field-status`, `field-boxc-id` columns), as Debian's examples/dlr-mysql.conf
 *   spells the same groups for MySQL.
 * Logging is left to the command line's verbosity (errors only), so neither side pays for a log
 * line per message.
 */
export function kannelConfig(
  storage: KannelDlrStorage,
  ports: KannelPorts,
  storeFile: string,
  database?: KannelDatabase,
): string {
  const groups = [
    group('core', {
      'admin-port': ports.admin,
      'admin-password': KANNEL_PASSWORD,
      'status-password': KANNEL_PASSWORD,
      'admin-allow-ip': '127.0.0.1',
      'smsbox-port': ports.smsbox,
      'box-allow-ip': '127.0.0.1',
      'dlr-storage': storage,
      'store-type': 'file',
      'store-location': storeFile,
    }),
    group('smsc', {
      smsc: 'smpp',
      'smsc-id': 'sim',
      host: '127.0.0.1',
      port: ports.smsc,
      'transceiver-mode': 'true',
      'smsc-username': 'kannel',
      'smsc-password': 'kannel',
      'system-type': 'bench',
      'msg-id-type': '0x01',
      'max-pending-submits': KANNEL_WINDOW,
    }),
    group('smsbox', {
      'bearerbox-host': '127.0.0.1',
      'bearerbox-port': ports.smsbox,
      'sendsms-port': ports.sendsms,
      'sendsms-interface': '127.0.0.1',
    }),
    group('sendsms-user', {
      username: KANNEL_USER,
      password: KANNEL_PASSWORD,
      'max-messages': 1,
      'default-sender': '12345',
    }),
  ];
  if (storage === 'pgsql') {
    if (!database) throw new Error('dlr-storage = pgsql needs a database');
    groups.push(
      group('pgsql-connection', {
        id: 'dlr',
        host: database.host,
        port: database.port,
        username: database.user,
        password: database.password,
        database: database.name,
        // The same number of connections as the gateway's pools open under this load.
        'max-connections': 4,
      }),
      group('dlr-db', {
        id: 'dlr',
        table: 'dlr',
        'field-smsc': 'smsc',
        'field-timestamp': 'ts',
        'field-destination': 'destination',
        'field-source': 'source',
        'field-service': 'service',
        'field-url': 'url',
        'field-mask': 'mask',
        'field-status': 'status',
        'field-boxc-id': 'boxc',
      }),
    );
  }
  return groups.join('\n');
}

/**
 * The table `dlr-db` names, with the indexes the example recommends (on `smsc` and `ts`: Kannel
 * finds a record by both when its receipt comes). Kannel 1.4.5's pgsql storage removes a record
 * by `oid` (`DELETE FROM dlr WHERE oid = (SELECT oid FROM dlr WHERE smsc = … AND ts = … LIMIT 1)`,
 * as Postgres logs it), a system column Postgres no longer has since version 12: an ordinary
 * `oid` column, indexed, stands in for it, or every receipt would fail its delete and the table
 * would only grow.
 */
export const KANNEL_DLR_TABLE = `
  CREATE TABLE dlr (
    oid bigserial PRIMARY KEY,
    smsc varchar(40), ts varchar(65), destination varchar(40), source varchar(40),
    service varchar(40), url varchar(255), mask integer, status integer, boxc varchar(40));
  CREATE INDEX dlr_smsc_index ON dlr (smsc);
  CREATE INDEX dlr_ts_index ON dlr (ts);`;

function group(name: string, settings: Record<string, string | number>): string {
  const lines = Object.entries(settings).map(([k, v]) =>
    typeof v === 'number' ? `${k} = ${v}` : `${k} = "${v}"`,
  );
  return [`group = ${name}`, ...lines, ''].join('\n');
}
