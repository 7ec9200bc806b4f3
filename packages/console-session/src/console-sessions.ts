import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError, type Queryable } from '@smsgw/kit';
import {
  deleteConsoleSession,
  deleteExpiredConsoleSessions,
  findConsoleSession,
  insertConsoleSession,
  touchConsoleSession,
  type ConsoleSessionKind,
} from '@smsgw/store';
import { CSRF_HEADER, sessionCookieOf } from './session-cookie';

export interface SessionTimes {
  /** A session unused this long ends (CONSOLE_SESSION_IDLE_MINUTES). */
  idleMs: number;
  /** A session ends this long after its login, used or not (CONSOLE_SESSION_MAX_HOURS). */
  maxMs: number;
}

/** A session found by its cookie: who it is, and the token its state-changing requests carry. */
export interface ActiveSession {
  idHash: string;
  kind: ConsoleSessionKind;
  csrfToken: string;
  expiresAt: Date;
  /** A customer's account, as it is now. */
  accountId?: string | undefined;
  username?: string | undefined;
  /** An operator's admin token (its SHA-256), checked again by the admin API on every request. */
  adminTokenHash?: string | undefined;
}

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, stored only as its hash. */
  cookieValue: string;
  csrfToken: string;
  expiresAt: Date;
}

/** A session's idle end is moved on at most this often, not written at every request. */
const TOUCH_EVERY_MS = 60_000;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const hashOf = (value: string): string => createHash('sha256').update(value).digest('hex');

/** A cookie value as the console makes them: 43 base64url characters (256 random bits). */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Refuses a request whose browser says another site's page made it (Sec-Fetch-Site): a console
 * request comes from the gateway's own pages.
 */
export function refuseOtherSite(req: IncomingMessage): void {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site')
    throw new HttpError('FORBIDDEN', 'Console requests from another site are not allowed');
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The web console's server-side sessions (docs/console.md § Sessions), kept in
 * `console_sessions` so that every process of the gateway finds them.
 */
export class ConsoleSessions {
  constructor(
    private readonly db: Queryable,
    private readonly times: SessionTimes,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The cookie's max age: the longest a session can last. The server ends it sooner when it is
   * idle; a cookie that expired with the idle timeout would end a session in use.
   */
  get cookieMaxAgeSeconds(): number {
    return Math.floor(this.times.maxMs / 1000);
  }

  async open(who: {
    kind: ConsoleSessionKind;
    accountId?: string;
    adminTokenHash?: string;
  }): Promise<OpenedSession> {
    const cookieValue = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now().getTime() + this.times.idleMs);
    await insertConsoleSession(this.db, {
      idHash: hashOf(cookieValue),
      ...who,
      csrfToken,
      expiresAt,
    });
    return { cookieValue, csrfToken, expiresAt };
  }

  /**
   * The live session a request's cookie names, its idle end moved on; undefined without a cookie
   * or when the session has ended. A customer's session whose account was disabled or whose
   * password changed since the login has ended too.
   */
  async find(req: IncomingMessage): Promise<ActiveSession | undefined> {
    const value = sessionCookieOf(req);
    if (value === undefined || !COOKIE_VALUE.test(value)) return undefined;
    const idHash = hashOf(value);
    const now = this.now();
    const row = await findConsoleSession(this.db, idHash, now);
    if (!row) return undefined;
    if (row.kind === 'customer' && (row.disabled !== false || row.credentials_current !== true)) {
      await deleteConsoleSession(this.db, idHash);
      return undefined;
    }
    let expiresAt = row.expires_at;
    if (now.getTime() - row.seen_at.getTime() >= TOUCH_EVERY_MS) {
      const end = row.created_at.getTime() + this.times.maxMs;
      expiresAt = new Date(Math.min(end, now.getTime() + this.times.idleMs));
      await touchConsoleSession(this.db, idHash, now, expiresAt);
    }
    return {
      idHash,
      kind: row.kind,
      csrfToken: row.csrf_token,
      expiresAt,
      accountId: row.account_id ?? undefined,
      username: row.username ?? undefined,
      adminTokenHash: row.admin_token_hash ?? undefined,
    };
  }

  /**
   * Refuses a request made with a session's cookie from another site (a browser says so in
   * Sec-Fetch-Site), and a state-changing one that does not carry the session's CSRF token: a page
   * of another site cannot read the token, so it cannot make such a request in the user's name.
   */
  checkRequest(req: IncomingMessage, session: ActiveSession): void {
    refuseOtherSite(req);
    if (SAFE_METHODS.has(req.method ?? 'GET')) return;
    const given = req.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !sameToken(given, session.csrfToken))
      throw new HttpError(
        'FORBIDDEN',
        `A console request that changes something must carry its session's ${CSRF_HEADER} header`,
      );
  }

  async close(session: ActiveSession): Promise<void> {
    await deleteConsoleSession(this.db, session.idHash);
  }

  /** Deletes sessions that have ended, up to `limit`; answers how many. */
  async sweep(limit = 1000): Promise<number> {
    return deleteExpiredConsoleSessions(this.db, this.now(), limit);
  }
}

/** The session times of CONSOLE_SESSION_IDLE_MINUTES and CONSOLE_SESSION_MAX_HOURS. */
export function consoleSessionTimes(config: {
  CONSOLE_SESSION_IDLE_MINUTES: number;
  CONSOLE_SESSION_MAX_HOURS: number;
}): SessionTimes {
  return {
    idleMs: config.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
    maxMs: config.CONSOLE_SESSION_MAX_HOURS * 3_600_000,
  };
}
