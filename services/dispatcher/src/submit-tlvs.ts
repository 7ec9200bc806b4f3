import type { Queryable } from '@smsgw/kit';
import {
  connectorTlvs,
  connectorTlvsVersion,
  routeTlvs,
  routeTlvsVersion,
  type StoredTlv,
} from '@smsgw/store';

/**
 * The TLVs operators set per connector (defaults) and per MT route (overrides), as this
 * dispatcher last read them. Read once before the first submit and again when their versions
 * change, looked at no more often than `refreshMs`: a change reaches submits within about that
 * long, and a submit costs no query.
 */
export class SubmitTlvs {
  private byConnector = new Map<string, StoredTlv[]>();
  private byRoute = new Map<string, StoredTlv[]>();
  private version: string | undefined;
  private checkedAt = 0;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly refreshMs: number,
  ) {}

  /** Resolves at once while what is held is recent enough; else once it was read again. */
  fresh(): Promise<void> | undefined {
    if (this.version !== undefined && Date.now() - this.checkedAt < this.refreshMs)
      return undefined;
    this.checking ??= this.reload().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** The connector's defaults and the route's overrides, for buildSubmitRequest. */
  forSubmit(connector: string, route: string | null): SubmitTlvLayers {
    return {
      connector: this.byConnector.get(connector) ?? [],
      route: route === null ? [] : (this.byRoute.get(route) ?? []),
    };
  }

  private async reload(): Promise<void> {
    const version = `${await connectorTlvsVersion(this.db)} ${await routeTlvsVersion(this.db)}`;
    if (version !== this.version) {
      this.byConnector = await connectorTlvs(this.db);
      this.byRoute = await routeTlvs(this.db);
      this.version = version;
    }
    this.checkedAt = Date.now();
  }
}

/** The TLVs an operator adds to a message's own: the connector's under them, the route's over. */
export interface SubmitTlvLayers {
  connector: readonly StoredTlv[];
  route: readonly StoredTlv[];
}
