import type { RequestHandler, Response } from 'express';
import type { AdminScope } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';
import { adminActor } from './admin-auth';
import { noteAuditTarget } from './admin-target';

const DECLARED = Symbol('admin scope');

type ScopeCheck = RequestHandler & { [DECLARED]: AdminScope };

/** A 403 that names the scope, so the operator knows which token to use or to make. */
export function missingScope(scope: AdminScope): HttpError {
  return new HttpError('FORBIDDEN', `This admin token lacks the scope ${scope}`, {
    field: 'scope',
  });
}

/** Whether the caller's admin token holds `scope`. */
export function holdsScope(res: Response, scope: AdminScope): boolean {
  return adminActor(res).scopes.has(scope);
}

/**
 * The first handler of every admin route: the scope the route needs. A test walks the admin
 * router and fails on a route without one, so a new route cannot be left open to every token.
 * Being first, it also notes the route's target for the audit trail, refused requests included.
 */
export function requireScope(scope: AdminScope): ScopeCheck {
  const check: RequestHandler = (req, res, next) => {
    noteAuditTarget(req, res);
    next(holdsScope(res, scope) ? undefined : missingScope(scope));
  };
  return Object.assign(check, { [DECLARED]: scope });
}

/** The scope a handler declares, if it is a requireScope check. */
export function declaredScope(handler: unknown): AdminScope | undefined {
  return typeof handler === 'function' ? (handler as Partial<ScopeCheck>)[DECLARED] : undefined;
}
