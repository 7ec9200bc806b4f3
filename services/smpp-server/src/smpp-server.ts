import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server, Session } from 'smpp';
import type { SmppSessionView } from '@smsgw/contracts';
import {
  addressKey,
  compileProxyTrust,
  PollingLoop,
  followAccountChanges,
  type Bus,
  type Consumer,
  type Db,
  type ForgetsAccounts,
  type Logger,
} from '@smsgw/kit';
import {
  cancelWaitingMessage,
  deleteSmppSession,
  findSmppAccess,
  insertSmppSession,
  refreshSmppSessions,
  smppCredentialOf,
} from '@smsgw/store';
import { useRawShortMessages } from '@smsgw/smsc';
import type { AccountLimits } from './account-limits';
import type { BindCredentials } from './bind-credentials';
import {
  EsmeSession,
  plainAddress,
  type SessionSettings,
  type SubmitAcceptance,
} from './esme-session';
import type { SmppServerMetrics } from './metrics';

const smpp = useRawShortMessages();

/** How often a replica refreshes its sessions' rows: the admin listing's rate and an operator's close lag by this. */
export const SESSION_REFRESH_MS = 2_000;

export interface SmppListenSettings {
  host: string;
  port: number;
  /** TLS beside plain TCP, when a certificate and key are configured. */
  tls?: { port: number; certFile: string; keyFile: string } | undefined;
  /** Connections held at once, bound or not; one more is closed as it comes. */
  maxConnections: number;
  /** Connections from one address that have not bound yet; one more is closed as it comes. */
  maxPendingPerAddress: number;
}

export interface SmppServerOptions {
  db: Db;
  bus: Bus;
  credentials: BindCredentials;
  limits: AccountLimits;
  acceptance: SubmitAcceptance;
  metrics: SmppServerMetrics;
  logger: Logger;
  settings: SessionSettings;
  listen: SmppListenSettings;
  /** This replica's name in the session listing. */
  replica: string;
}

/**
 * The SMPP server customers bind to as ESMEs (docs/smpp-server.md): one listener for plain TCP and,
 * when configured, one for TLS; the sessions bound here, by account; and the closing of an
 * account's sessions as soon as it may no longer bind (disabled, its SMPP access taken away).
 */
export class SmppServer implements ForgetsAccounts {
  private readonly servers: Server[] = [];
  private readonly sessions = new Set<EsmeSession>();
  private readonly byAccount = new Map<string, Set<EsmeSession>>();
  private following: Consumer | undefined;
  private stopping = false;
  /** Keeps this replica's rows of smpp_sessions fresh and unbinds those an operator closed. */
  private readonly refresh: PollingLoop;
  /** Called when a session of an account that receives binds (deliveries waiting for it go out). */
  onReceiverBound: (accountId: string) => void = () => undefined;
  port = 0;
  tlsPort: number | undefined;

  constructor(private readonly options: SmppServerOptions) {
    this.refresh = new PollingLoop(() => this.refreshRows(), options.logger, 'SMPP session rows');
  }

  private listener(session: Session): void {
    if (this.stopping) {
      session.destroy();
      return;
    }
    const refused = this.refusal(session.socket.remoteAddress ?? '');
    if (refused) {
      this.options.metrics.connectionsRefused.inc({ reason: refused });
      session.on('error', () => undefined);
      session.destroy();
      return;
    }
    const esme = new EsmeSession(session, {
      credentials: this.options.credentials,
      limits: this.options.limits,
      acceptance: this.options.acceptance,
      cancel: (accountId, id) => cancelWaitingMessage(this.options.db, accountId, id),
      metrics: this.options.metrics,
      logger: this.options.logger,
      settings: this.options.settings,
      onBound: (s) => this.bound(s),
      onClosed: (s) => this.closed(s),
    });
    this.sessions.add(esme);
  }

  /**
   * Connections that never bind cost a socket and timers each until the bind timeout: they are
   * capped per address (an IPv6 client by its /64, which it holds whole) and in all. At the cap in
   * all, the oldest connection that has not bound gives way to the new one, so connections that
   * never bind cannot keep customers who reconnect out; with none to give way, the new one is
   * refused.
   */
  private refusal(address: string): 'connections' | 'address' | undefined {
    const { maxConnections, maxPendingPerAddress } = this.options.listen;
    const key = addressKey(address);
    let pending = 0;
    let oldestPending: EsmeSession | undefined;
    for (const s of this.sessions) {
      if (s.account) continue;
      if (addressKey(s.address) === key) pending++;
      // A bind being checked is not given way: its customer may be about to bind.
      if (!s.binding) oldestPending ??= s;
    }
    if (pending >= maxPendingPerAddress) return 'address';
    if (this.sessions.size < maxConnections) return undefined;
    if (!oldestPending) return 'connections';
    this.options.metrics.connectionsRefused.inc({ reason: 'gave_way' });
    this.sessions.delete(oldestPending);
    oldestPending.destroy();
    return undefined;
  }

  private bound(session: EsmeSession): void {
    const accountId = session.account!.accountId;
    const held = this.byAccount.get(accountId) ?? new Set<EsmeSession>();
    held.add(session);
    this.byAccount.set(accountId, held);
    this.options.metrics.sessions.inc({
      account: session.account!.username,
      bind_type: session.bindType!,
    });
    if (session.receives) this.onReceiverBound(accountId);
    // A change of the access while this bind was being checked came before the session was here
    // to be rechecked: read the access once more now that it is.
    void this.recheck(accountId);
    insertSmppSession(this.options.db, {
      id: session.id,
      accountId,
      bindType: session.bindType!,
      address: session.address,
      since: session.since!,
      replica: this.options.replica,
    }).catch((err: unknown) =>
      this.options.logger.warn({ err, session: session.id }, 'recording an SMPP session failed'),
    );
  }

  private async refreshRows(): Promise<void> {
    const bound = [...this.sessions].filter((s) => s.bound);
    const closing = await refreshSmppSessions(
      this.options.db,
      bound.map((s) => ({
        id: s.id,
        windowInUse: s.inFlight,
        submitsPerSecond: s.submitsPerSecond,
      })),
    );
    for (const id of closing) {
      this.options.logger.info({ session: id }, 'an operator closed this SMPP session');
      await this.close(id);
    }
  }

  private closed(session: EsmeSession): void {
    this.sessions.delete(session);
    if (!session.account) return;
    deleteSmppSession(this.options.db, session.id).catch((err: unknown) =>
      this.options.logger.warn({ err, session: session.id }, 'removing an SMPP session row failed'),
    );
    const held = this.byAccount.get(session.account.accountId);
    held?.delete(session);
    if (held?.size === 0) this.byAccount.delete(session.account.accountId);
    this.options.metrics.sessions.dec({
      account: session.account.username,
      bind_type: session.bindType!,
    });
  }

  private async listenOn(server: Server, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.options.listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  async start(): Promise<void> {
    const { listen } = this.options;
    this.port = await this.listenOn(
      smpp.createServer({}, (s) => this.listener(s)),
      listen.port,
    );
    if (listen.tls) {
      const tlsServer = smpp.createServer(
        { key: readFileSync(listen.tls.keyFile), cert: readFileSync(listen.tls.certFile) },
        (s) => this.listener(s),
      );
      this.tlsPort = await this.listenOn(tlsServer, listen.tls.port);
    }
    this.following = await followAccountChanges(this.options.bus, [this], this.options.logger);
    this.refresh.start(SESSION_REFRESH_MS);
  }

  /** The bound sessions of an account that deliver_sm may go to. */
  receiversOf(accountId: string): EsmeSession[] {
    return [...(this.byAccount.get(accountId) ?? [])].filter((s) => s.receives);
  }

  /** The accounts with a receiving session here. */
  receivingAccounts(): string[] {
    return [...this.byAccount.keys()].filter((id) => this.receiversOf(id).length > 0);
  }

  list(): SmppSessionView[] {
    return [...this.sessions]
      .filter((s) => s.bound)
      .map((s) => ({
        id: s.id,
        system_id: s.account!.username,
        bind_type: s.bindType!,
        address: s.address,
        since: s.since!.toISOString(),
        window_in_use: s.inFlight,
        submits_per_second: s.submitsPerSecond,
        replica: this.options.replica,
      }));
  }

  /** Unbinds and closes one session; false when no session here has that id. */
  async close(sessionId: string): Promise<boolean> {
    const session = [...this.sessions].find((s) => s.id === sessionId);
    if (!session) return false;
    await session.unbind();
    return true;
  }

  forgetAccount(accountId: string): void {
    void this.recheck(accountId);
  }

  forgetAll(): void {
    for (const accountId of this.byAccount.keys()) void this.recheck(accountId);
  }

  /**
   * After an operator changed an account: its sessions go when it may no longer bind, and so does
   * each session the new access would not let bind (bound with the old password, or from an
   * address no longer allowed); the others take its new limits.
   */
  private async recheck(accountId: string): Promise<void> {
    const held = this.byAccount.get(accountId);
    if (!held || held.size === 0) return;
    try {
      const access = await findSmppAccess(this.options.db, accountId);
      if (!access || access.disabled) {
        this.options.logger.info({ accountId }, 'account may no longer bind; closing its sessions');
        await Promise.all([...held].map((s) => s.unbind()));
        return;
      }
      const credential = smppCredentialOf(access.password_hash);
      const allowed =
        access.allowed_addresses.length > 0
          ? compileProxyTrust(access.allowed_addresses)
          : undefined;
      const sessions = [...held];
      const refused = sessions.filter(
        (s) =>
          (s.account!.credential !== undefined && s.account!.credential !== credential) ||
          (allowed !== undefined && !allowed(plainAddress(s.address), 0)),
      );
      for (const s of sessions)
        if (!refused.includes(s))
          s.account = {
            ...s.account!,
            maxSessions: access.max_sessions,
            throughput: access.throughput,
            allowedAddresses: access.allowed_addresses,
          };
      if (refused.length > 0) {
        this.options.logger.info(
          { accountId, sessions: refused.map((s) => s.id) },
          'the SMPP access changed: unbinding the sessions it no longer allows',
        );
        await Promise.all(refused.map((s) => s.unbind()));
      }
    } catch (err) {
      this.options.logger.error({ err, accountId }, 'rechecking an account after a change failed');
    }
  }

  /** On shutdown: no new connections, every session unbound (its customer re-binds elsewhere). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.following?.cancel();
    await this.refresh.stop();
    const closing = this.servers.map(
      (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    const sessions = [...this.sessions];
    for (const s of sessions) if (!s.bound) s.destroy();
    await Promise.all(sessions.filter((s) => s.bound).map((s) => s.unbind()));
    await Promise.all(closing);
    await this.options.limits.close();
  }
}
