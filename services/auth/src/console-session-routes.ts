import { Router, type Request, type Response } from 'express';
import {
  ConsoleLoginSchema,
  CONSOLE_SESSION_PATH,
  type AdminScope,
  type ConsoleSessionInfo,
} from '@smsgw/contracts';
import {
  clearedSessionCookie,
  refuseOtherSite,
  sessionCookie,
  type ActiveSession,
  type ConsoleSessions,
} from '@smsgw/console-session';
import {
  asyncRoute,
  clientAddress,
  HttpError,
  jsonBody,
  parseInput,
  type Db,
  type ProxyTrust,
} from '@smsgw/kit';
import { adminActorOf, adminActorOfHash, adminTokenHash, type AdminActor } from './admin-auth';
import type { CredentialVerifier } from './credential-verifier';
import type { LoginGuard } from './login-guard';

export interface ConsoleSessionRoutesDeps {
  db: Db;
  sessions: ConsoleSessions;
  verifier: CredentialVerifier;
  guard: LoginGuard;
  adminToken: string;
  trustedProxies: ProxyTrust;
  maxBodyBytes: number;
}

/** Behind TLS (directly, or as a trusted proxy says), the cookie is Secure. */
function overTls(req: Request): boolean {
  return req.secure;
}

function info(
  kind: ActiveSession['kind'],
  name: string,
  scopes: Iterable<AdminScope>,
  csrfToken: string,
  expiresAt: Date,
): ConsoleSessionInfo {
  return {
    kind,
    name,
    scopes: [...scopes].sort(),
    csrfToken,
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * The web console's sessions (docs/console.md § Sessions): a login makes one (POST), the console
 * asks who it is (GET), a logout ends it (DELETE). The login of a customer goes through the same
 * check, cache and limits as the API's Basic credentials; an operator's through the admin API's
 * token check, its failures limited per address as logins are.
 */
export function createConsoleSessionRoutes(deps: ConsoleSessionRoutesDeps): Router {
  const { sessions } = deps;
  const router = Router();
  const noStore = (res: Response) => res.set('Cache-Control', 'no-store');

  const operatorActor = async (req: Request, token: string): Promise<AdminActor | undefined> => {
    const address = clientAddress(req, deps.trustedProxies);
    // Tokens have no name: the failures of one address are its own, and cannot lock others out.
    const attempt = {
      protocol: 'http' as const,
      name: `console-operator ${address ?? ''}`,
      secret: token,
      address,
    };
    return deps.guard.verify(attempt, () => adminActorOf(deps.db, deps.adminToken, token));
  };

  router.post(
    CONSOLE_SESSION_PATH,
    ...jsonBody(deps.maxBodyBytes),
    asyncRoute(async (req, res) => {
      // A login from another site's page would sign the user in to an account of that site's choosing.
      refuseOtherSite(req);
      const login = parseInput(ConsoleLoginSchema, req.body ?? {});
      let body: ConsoleSessionInfo;
      let opened;
      if (login.kind === 'customer') {
        const principal = await deps.verifier.verifyPassword(login.username, login.password, {
          address: clientAddress(req, deps.trustedProxies),
        });
        opened = await sessions.open({ kind: 'customer', accountId: principal.accountId });
        body = info('customer', principal.username, [], opened.csrfToken, opened.expiresAt);
      } else {
        const actor = await operatorActor(req, login.token);
        if (!actor) throw HttpError.unauthorized('Wrong admin token');
        opened = await sessions.open({
          kind: 'operator',
          adminTokenHash: adminTokenHash(login.token),
        });
        body = info('operator', actor.name, actor.scopes, opened.csrfToken, opened.expiresAt);
      }
      noStore(res)
        .set(
          'Set-Cookie',
          sessionCookie(opened.cookieValue, sessions.cookieMaxAgeSeconds, overTls(req)),
        )
        .status(201)
        .json(body);
    }),
  );

  /** The request's session, or a 401; for an operator, with its token's actor as it is now. */
  const current = async (
    req: Request,
  ): Promise<{ session: ActiveSession; name: string; scopes: Iterable<AdminScope> }> => {
    const session = await sessions.find(req);
    if (session) sessions.checkRequest(req, session);
    if (session?.kind === 'customer' && session.username !== undefined)
      return { session, name: session.username, scopes: [] };
    if (session?.kind === 'operator' && session.adminTokenHash !== undefined) {
      const actor = await adminActorOfHash(deps.db, deps.adminToken, session.adminTokenHash);
      if (actor) return { session, name: actor.name, scopes: actor.scopes };
      await sessions.close(session);
    }
    throw HttpError.unauthorized('No console session: log in');
  };

  router.get(
    CONSOLE_SESSION_PATH,
    asyncRoute(async (req, res) => {
      const { session, name, scopes } = await current(req);
      noStore(res).json(info(session.kind, name, scopes, session.csrfToken, session.expiresAt));
    }),
  );

  router.delete(
    CONSOLE_SESSION_PATH,
    asyncRoute(async (req, res) => {
      const { session } = await current(req);
      await sessions.close(session);
      noStore(res)
        .set('Set-Cookie', clearedSessionCookie(overTls(req)))
        .status(204)
        .end();
    }),
  );
  return router;
}
