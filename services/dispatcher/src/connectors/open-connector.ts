import type { Logger, UrlGuard } from '@smsgw/kit';
import {
  HttpConnector,
  SmppConnector,
  SmppPairConnector,
  parseHttpSmscUrl,
  parseSmscUrl,
  type SmscConnector,
} from '@smsgw/smsc';

/** A connector as the `connectors` table holds it. */
export interface ConnectorConfig {
  name: string;
  url: string;
  binds: number;
  bindMode: 'transceiver' | 'transmitter_receiver';
  desiredState: 'started' | 'stopped';
}

/** What a connector may reach and read: CONNECTOR_ALLOWED_HOSTS and SMSC_CA_DIR. */
export interface ConnectorAccess {
  /** The addresses an HTTP connector may connect to. */
  guard: UrlGuard;
  /** Where a `tls_ca` file name is read from. */
  caDir?: string | undefined;
}

export interface OpenedConnector {
  connector: SmscConnector;
  /** Its cluster-wide cap in PDUs per second; 0: none. */
  throughput: number;
}

/**
 * One session's connector for a connector's URL: SMPP (plain or TLS) or HTTP, one class per file in
 * the smsc package; this is the only place that picks one.
 */
export function openConnector(
  config: ConnectorConfig,
  logger: Logger,
  access: ConnectorAccess,
): OpenedConnector {
  const log = logger.child({ connector: config.name });
  if (/^https?:/.test(config.url)) {
    return {
      connector: new HttpConnector(
        { ...parseHttpSmscUrl(config.url), name: config.name },
        log,
        access.guard,
      ),
      throughput: 0,
    };
  }
  const options = parseSmscUrl(config.url, { caDir: access.caDir });
  return {
    connector:
      config.bindMode === 'transmitter_receiver'
        ? new SmppPairConnector({ ...options, name: config.name }, log)
        : new SmppConnector({ ...options, name: config.name }, log),
    throughput: options.throughput,
  };
}
