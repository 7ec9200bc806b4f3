import { Router, type Request } from 'express';
import {
  ClientIdSchema,
  CreateApplicationSchema,
  type ApplicationList,
  type Principal,
} from '@smsgw/contracts';
import type { ConsoleSessions } from '@smsgw/console-session';
import {
  asyncRoute,
  clientAddress,
  HttpError,
  jsonBody,
  parseInput,
  type Db,
  type ProxyTrust,
} from '@smsgw/kit';
import { countApplications, listApplications, MAX_LISTED_APPLICATIONS } from '@smsgw/store';
import type { AccountAnnouncer } from './account-announcer';
import type { AccountStore } from './account-store';
import { newApplicationCredentials } from './application-credentials';
import { parseBasic, type CredentialVerifier } from './credential-verifier';
import type { PasswordHasher } from './password-hasher';

/** Where a customer lists, makes and revokes its applications. */
export const CUSTOMER_APPLICATIONS_PATH = '/auth/v1/applications';

export interface CustomerApplicationDeps {
  db: Db;
  store: AccountStore;
  hasher: PasswordHasher;
  verifier: CredentialVerifier;
  announcer: AccountAnnouncer;
  sessions: ConsoleSessions;
  trustedProxies: ProxyTrust;
  maxBodyBytes: number;
}

/**
 * A customer's own applications (client id and secret for POST /auth/v1/login/application), with
 * its account's username and password (Basic) or its web console session. An application's token
 * cannot manage applications: one leaked token would otherwise mint credentials that outlive it.
 */
export function createCustomerApplicationRoutes(deps: CustomerApplicationDeps): Router {
  const router = Router();

  const customerOf = async (req: Request): Promise<Principal> => {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const basic = parseBasic(header);
      if (!basic)
        throw new HttpError(
          'FORBIDDEN',
          "Applications are managed with the account's username and password, or its console session",
        );
      return deps.verifier.verifyPassword(basic.username, basic.password, {
        address: clientAddress(req, deps.trustedProxies),
      });
    }
    const session = await deps.sessions.find(req);
    if (session?.kind === 'customer' && session.accountId && session.username) {
      deps.sessions.checkRequest(req, session);
      return { accountId: session.accountId, username: session.username, via: 'session' };
    }
    throw HttpError.unauthorized();
  };

  router.get(
    CUSTOMER_APPLICATIONS_PATH,
    asyncRoute(async (req, res) => {
      const { accountId } = await customerOf(req);
      res.set('Cache-Control', 'no-store').json(await applicationList(deps.db, accountId));
    }),
  );

  router.post(
    CUSTOMER_APPLICATIONS_PATH,
    ...jsonBody(deps.maxBodyBytes),
    asyncRoute(async (req, res) => {
      const { accountId } = await customerOf(req);
      const { name } = parseInput(CreateApplicationSchema, req.body ?? {});
      await refuseOverLimit(deps.db, accountId);
      const made = await newApplicationCredentials(deps.hasher);
      await deps.store.createApplication(accountId, made.clientId, made.secretHash, name ?? null);
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json({ client_id: made.clientId, client_secret: made.clientSecret, name: name ?? null });
    }),
  );

  router.delete(
    `${CUSTOMER_APPLICATIONS_PATH}/:clientId`,
    asyncRoute(async (req, res) => {
      const { accountId } = await customerOf(req);
      const clientId = parseInput(ClientIdSchema, req.params['clientId']);
      if (!(await deps.store.revokeApplication(accountId, clientId)))
        throw HttpError.notFound(`No application ${clientId}`);
      await deps.announcer.announce(accountId, 'application-revoked', clientId);
      res.status(204).end();
    }),
  );
  return router;
}

/** An account holds at most MAX_LISTED_APPLICATIONS live applications. */
export async function refuseOverLimit(db: Db, accountId: string): Promise<void> {
  if ((await countApplications(db, accountId)) >= MAX_LISTED_APPLICATIONS)
    throw new HttpError(
      'CONFLICT',
      `An account has at most ${MAX_LISTED_APPLICATIONS} applications: revoke one first`,
    );
}

/** An account's live applications as both APIs show them. */
export async function applicationList(db: Db, accountId: string): Promise<ApplicationList> {
  return {
    data: (await listApplications(db, accountId)).map((a) => ({
      client_id: a.client_id,
      name: a.name,
      created_at: a.created_at.toISOString(),
      secret_changed_at: a.secret_changed_at?.toISOString() ?? null,
    })),
  };
}
