import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ADMIN_SCOPES, type AdminScope } from '@smsgw/contracts';
import { HttpError, type Queryable } from '@smsgw/kit';
import type { ConsoleSessions } from '@smsgw/console-session';
import { findLiveAdminToken } from '@smsgw/store';
import { sameSecret } from './same-secret';

/** Who is calling the admin API: the audit trail's actor, and what it may do. */
export interface AdminActor {
  name: string;
  scopes: ReadonlySet<AdminScope>;
}

/** The actor the bootstrap token (ADMIN_TOKEN) acts as; no admin token can take this name. */
export const BOOTSTRAP_ACTOR = 'ADMIN_TOKEN';

/** Admin tokens made by the API start so, which tells them from ADMIN_TOKEN in a log or a leak scan. */
const TOKEN_PREFIX = 'smsgw_admin_';

/** A new admin token: 256 random bits, shown once and stored only as its hash. */
export function newAdminToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: its random part makes a plain SHA-256 enough. */
export function adminTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function adminActor(res: Response): AdminActor {
  const actor = res.locals['adminActor'] as AdminActor | undefined;
  if (!actor) throw new Error('admin route reached without an authenticated admin actor');
  return actor;
}

/**
 * The actor of an admin token given by its hash: ADMIN_TOKEN's (every scope) or a live token's
 * (its scopes); undefined for any other.
 */
async function actorOfHash(
  db: Queryable,
  bootstrapHash: string,
  tokenHash: string,
): Promise<AdminActor | undefined> {
  if (sameSecret(tokenHash, bootstrapHash)) return { name: BOOTSTRAP_ACTOR, scopes: ALL_SCOPES };
  const row = await findLiveAdminToken(db, tokenHash);
  if (!row) return undefined;
  const scopes = new Set(
    row.scopes.filter((s): s is AdminScope => ALL_SCOPES.has(s as AdminScope)),
  );
  return { name: row.name, scopes };
}

const ALL_SCOPES: ReadonlySet<AdminScope> = new Set(ADMIN_SCOPES);

/** Whether a bearer value is shaped as ADMIN_TOKEN or a token the API made could be. */
function plausibleToken(token: string, bootstrapToken: string): boolean {
  return (
    sameSecret(token, bootstrapToken) || (token.startsWith(TOKEN_PREFIX) && token.length <= 128)
  );
}

/** The actor of an admin token given by its hash (a console session's), as it is now. */
export async function adminActorOfHash(
  db: Queryable,
  bootstrapToken: string,
  tokenHash: string,
): Promise<AdminActor | undefined> {
  return actorOfHash(db, adminTokenHash(bootstrapToken), tokenHash);
}

/** The actor of an admin token given in full (a Bearer header, a console login); undefined if none. */
export async function adminActorOf(
  db: Queryable,
  bootstrapToken: string,
  token: string,
): Promise<AdminActor | undefined> {
  if (!plausibleToken(token, bootstrapToken)) return undefined;
  return actorOfHash(db, adminTokenHash(bootstrapToken), adminTokenHash(token));
}

/**
 * Admits ADMIN_TOKEN (every scope) and the live tokens of `admin_tokens` (their scopes), given as a
 * Bearer header or, without one, through an operator's console session (docs/console.md), whose
 * token is checked the same way. A token is looked up on every request, so a revocation holds from
 * the next request on, for its console sessions too.
 */
export function authenticateAdmin(
  db: Queryable,
  bootstrapToken: string,
  sessions?: ConsoleSessions,
): RequestHandler {
  const bootstrapHash = adminTokenHash(bootstrapToken);
  const refuse = () =>
    new HttpError('UNAUTHORIZED', 'Admin token required (Authorization: Bearer <admin token>)');
  const actorOf = async (req: Request): Promise<AdminActor | undefined> => {
    const header = req.headers.authorization;
    if (header === undefined && sessions !== undefined) {
      const session = await sessions.find(req);
      if (session?.kind !== 'operator' || session.adminTokenHash === undefined) return undefined;
      sessions.checkRequest(req, session);
      return actorOfHash(db, bootstrapHash, session.adminTokenHash);
    }
    const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
    return token ? adminActorOf(db, bootstrapToken, token) : undefined;
  };
  return (req, res, next) => {
    actorOf(req).then((actor) => {
      if (!actor) {
        next(refuse());
        return;
      }
      res.locals['adminActor'] = actor;
      next();
    }, next);
  };
}
