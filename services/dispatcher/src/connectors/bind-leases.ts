/**
 * Leases on a connector's binds: SMSCs refuse or bar a system_id that binds more often than it
 * was given, so a connector's `binds` is a hard limit across every dispatcher. A dispatcher opens
 * a session only while it holds one of the connector's lease slots (0 … binds-1), renews it
 * well before it expires, and closes the session as soon as it cannot (docs/routing.md § Binds).
 */
export interface BindLeases {
  /** Takes a free slot below `binds` for `holder`; undefined when all are held. */
  acquire(
    connector: string,
    binds: number,
    holder: string,
    ttlMs: number,
  ): Promise<number | undefined>;
  /** Extends the holder's lease; false when it is no longer the holder's (expired, taken). */
  renew(connector: string, slot: number, holder: string, ttlMs: number): Promise<boolean>;
  release(connector: string, slot: number, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** Embedded mode: one process, so the leases live in its memory. */
export class MemoryBindLeases implements BindLeases {
  private readonly leases = new Map<string, { holder: string; until: number }>();

  private held(key: string): { holder: string; until: number } | undefined {
    const lease = this.leases.get(key);
    return lease && lease.until > Date.now() ? lease : undefined;
  }

  acquire(
    connector: string,
    binds: number,
    holder: string,
    ttlMs: number,
  ): Promise<number | undefined> {
    for (let slot = 0; slot < binds; slot++) {
      const key = `${connector}:${slot}`;
      if (this.held(key)) continue;
      this.leases.set(key, { holder, until: Date.now() + ttlMs });
      return Promise.resolve(slot);
    }
    return Promise.resolve(undefined);
  }

  renew(connector: string, slot: number, holder: string, ttlMs: number): Promise<boolean> {
    const key = `${connector}:${slot}`;
    const lease = this.held(key);
    if (lease?.holder !== holder) return Promise.resolve(false);
    lease.until = Date.now() + ttlMs;
    return Promise.resolve(true);
  }

  release(connector: string, slot: number, holder: string): Promise<void> {
    const key = `${connector}:${slot}`;
    if (this.leases.get(key)?.holder === holder) this.leases.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
