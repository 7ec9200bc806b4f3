import { createHash, randomBytes } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { ADMIN_SCOPES, type AdminScope } from '@smsgw/contracts';
import { HttpError, type Queryable } from '@smsgw/kit';
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
 * Admits ADMIN_TOKEN (every scope) and the live tokens of `admin_tokens` (their scopes). A token
 * is looked up on every request, so a revocation holds from the next request on.
 */
export function authenticateAdmin(db: Queryable, bootstrapToken: string): RequestHandler {
  const all: ReadonlySet<AdminScope> = new Set(ADMIN_SCOPES);
  const refuse = () =>
    new HttpError('UNAUTHORIZED', 'Admin token required (Authorization: Bearer <admin token>)');
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (!token) {
      next(refuse());
      return;
    }
    if (sameSecret(token, bootstrapToken)) {
      res.locals['adminActor'] = { name: BOOTSTRAP_ACTOR, scopes: all } satisfies AdminActor;
      next();
      return;
    }
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) {
      next(refuse());
      return;
    }
    findLiveAdminToken(db, adminTokenHash(token)).then((row) => {
      if (!row) {
        next(refuse());
        return;
      }
      const scopes = new Set(row.scopes.filter((s): s is AdminScope => all.has(s as AdminScope)));
      res.locals['adminActor'] = { name: row.name, scopes } satisfies AdminActor;
      next();
    }, next);
  };
}
