import { isIP } from 'node:net';
import express, { Router, type RequestHandler } from 'express';
import multer from 'multer';
import {
  CreateAccountSchema,
  CreateApplicationSchema,
  ClientIdSchema,
  CreditSchema,
  DEFAULT_SECRET_GRACE_SECONDS,
  RotateCallbackSecretSchema,
  SPEC_MESSAGES,
  TokenRequestSchema,
  UsernameSchema,
  CLIENT_ADDRESS_HEADER,
  buildOpenApiDocument,
  type TokenResponse,
} from '@smsgw/contracts';
import {
  asyncRoute,
  HttpError,
  clientAddress,
  createApiDocsRouter,
  jsonBody,
  parseInput,
  type Db,
  type Logger,
  type ProxyTrust,
} from '@smsgw/kit';
import type { AccountAnnouncer } from './account-announcer';
import { AdminAudit } from './admin-audit';
import type { ConsoleSessions } from '@smsgw/console-session';
import { createBillingRoutes, createPriceImportRoute } from './billing-routes';
import { createConnectorCostRoutes } from './connector-cost-routes';
import { createConsoleSessionRoutes } from './console-session-routes';
import { newApplicationCredentials } from './application-credentials';
import {
  applicationList,
  createCustomerApplicationRoutes,
  refuseOverLimit,
} from './customer-application-routes';
import { authenticateAdmin } from './admin-auth';
import { holdsScope, missingScope, requireScope } from './admin-scopes';
import { createAdminTokenRoutes } from './admin-token-routes';
import { addAccountControlRoutes } from './account-control-routes';
import type { AccountStore } from './account-store';
import { accountDisabled, parseBasic, type CredentialVerifier } from './credential-verifier';
import type { LoginGuard } from './login-guard';
import { requireInternalToken } from './internal-guard';
import { createSmppAccessRoutes } from './smpp-access-routes';
import type { SmppBinds } from './smpp-binds';
import type { SenderRulesStore } from './sender-rules-store';
import { createSenderRoutes } from './sender-routes';
import { createInboundAdminRoutes } from './inbound-admin-routes';
import { createBatchAdminRoutes } from './batch-admin-routes';
import { createStatsRoutes } from './stats-routes';
import { createCdrRoutes } from './cdr-routes';
import { createOperatorViewRoutes } from './operator-view-routes';
import { createConnectorAdminRoutes, type ConnectorAdminSettings } from './connector-admin-routes';
import type { PasswordHasher } from './password-hasher';
import type { TokenIssuer } from './token-issuer';

export interface AuthRoutesDeps {
  store: AccountStore;
  /** The web console's sessions: made and ended here, admitted by the admin API. */
  sessions: ConsoleSessions;
  senders: SenderRulesStore;
  /** For the inbound routes, unrouted messages and opt-out lists. */
  db: Db;
  hasher: PasswordHasher;
  tokens: TokenIssuer;
  verifier: CredentialVerifier;
  guard: LoginGuard;
  announcer: AccountAnnouncer;
  adminToken: string;
  /** Without it (embedded mode, where the gateway asks in-process) there is no internal endpoint. */
  internalToken?: string | undefined;
  maxBodyBytes: number;
  /** The check of SMPP binds, offered to the smpp-server over the internal endpoint. */
  smppBinds?: SmppBinds;
  /** Proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES). */
  trustedProxies: ProxyTrust;
  logger?: Logger | undefined;
  connectors: ConnectorAdminSettings;
  /** SEARCH_MAX_DAYS. */
  searchMaxDays: number;
}

/** Form bodies as the spec says (multipart), urlencoded as OAuth clients send, and JSON for convenience. */
function formBody(maxBodyBytes: number): Array<RequestHandler | express.ErrorRequestHandler> {
  const multipart = multer({ limits: { fieldSize: 4096, fields: 10, files: 0, parts: 10 } }).none();
  const guard: RequestHandler = (req, _res, next) => {
    const type = req.headers['content-type'] ?? '';
    if (
      !/^(multipart\/form-data|application\/x-www-form-urlencoded|application\/json)\b/i.test(type)
    ) {
      next(
        new HttpError(
          'UNSUPPORTED_MEDIA_TYPE',
          'Send client_id and client_secret as form data (multipart or urlencoded)',
        ),
      );
      return;
    }
    next();
  };
  const multerErrors: express.ErrorRequestHandler = (err, _req, _res, next) => {
    if (err instanceof multer.MulterError) {
      next(
        new HttpError(
          err.code === 'LIMIT_FIELD_VALUE' ? 'PAYLOAD_TOO_LARGE' : 'INVALID_PARAMETER',
          `form data: ${err.message}`,
        ),
      );
      return;
    }
    // busboy's own errors of a malformed body (a part header with control characters, say).
    if (
      err instanceof Error &&
      /Multipart|Malformed|Unexpected end of form|Part terminated|boundary/i.test(err.message)
    ) {
      next(new HttpError('INVALID_PARAMETER', `form data: ${err.message}`));
      return;
    }
    next(err);
  };
  return [
    guard,
    multipart,
    multerErrors,
    express.urlencoded({ extended: false, limit: maxBodyBytes, parameterLimit: 10 }),
    express.json({ limit: maxBodyBytes }),
  ];
}

/** The answer to a wrong secret of a live application. */
const WRONG_APPLICATION_CREDENTIALS = 'Wrong client_id or client_secret';

/**
 * The specification's answer to a client_id with no live application. Client ids are 96 random
 * bits, so it gives a guesser nothing and tells a client its configuration is wrong.
 */
function applicationNotExists(): HttpError {
  return new HttpError('APPLICATION_NOT_EXISTS', SPEC_MESSAGES.APPLICATION_NOT_EXISTS);
}

export function createAuthRoutes(deps: AuthRoutesDeps): Router {
  const { store, hasher, tokens, verifier } = deps;
  const router = Router();
  router.use(createApiDocsRouter(buildOpenApiDocument()));
  router.use(
    createConsoleSessionRoutes({
      db: deps.db,
      sessions: deps.sessions,
      verifier,
      guard: deps.guard,
      adminToken: deps.adminToken,
      trustedProxies: deps.trustedProxies,
      maxBodyBytes: deps.maxBodyBytes,
    }),
  );
  router.use(
    createCustomerApplicationRoutes({
      db: deps.db,
      store,
      hasher,
      verifier,
      announcer: deps.announcer,
      sessions: deps.sessions,
      trustedProxies: deps.trustedProxies,
      maxBodyBytes: deps.maxBodyBytes,
    }),
  );
  const liveApplication = async (clientId: string) => {
    const found = await store.findApplication(clientId);
    return found && found.revoked_at === null ? found : undefined;
  };

  router.post(
    '/auth/v1/login/application',
    ...formBody(deps.maxBodyBytes),
    asyncRoute(async (req, res) => {
      const { client_id, client_secret } = parseInput(TokenRequestSchema, req.body ?? {});
      const attempt = {
        protocol: 'http' as const,
        name: client_id,
        secret: client_secret,
        address: clientAddress(req, deps.trustedProxies),
      };
      const app = await deps.guard.verify(attempt, async () => {
        const live = await liveApplication(client_id);
        // Unknown and revoked applications cost a KDF too and count as failures, so they are
        // limited as guesses are and take as long to answer as a wrong secret.
        if (!live) {
          await hasher.verifyDummy(client_secret);
          return undefined;
        }
        return (await hasher.verify(client_secret, live.secret_hash)) ? live : undefined;
      });
      // Looked up again rather than remembered from the check: an attempt alike to one in flight
      // shares its outcome without running a check of its own.
      if (!app)
        throw (await liveApplication(client_id))
          ? HttpError.unauthorized(WRONG_APPLICATION_CREDENTIALS)
          : applicationNotExists();
      if (app.disabled_at !== null) throw accountDisabled();
      const body: TokenResponse = {
        access_token: tokens.issue({
          sub: app.account_id,
          cid: app.client_id,
          ver: app.credential_version,
          sv: app.secret_version,
        }),
        token_type: 'bearer',
        expires_in: tokens.ttlSeconds,
      };
      res.set('Cache-Control', 'no-store').json(body);
    }),
  );

  // Used by the api-gateway: it forwards the caller's Authorization header and gets the account.
  // The internal token proves the caller is a gateway, so the client address it names is believed.
  if (deps.internalToken !== undefined)
    router.post(
      '/internal/v1/verify',
      requireInternalToken(deps.internalToken),
      asyncRoute(async (req, res) => {
        const forwarded = req.headers[CLIENT_ADDRESS_HEADER];
        const address =
          typeof forwarded === 'string' && isIP(forwarded) !== 0
            ? forwarded
            : clientAddress(req, deps.trustedProxies);
        res.json(await verifier.verify(req.headers.authorization, { address }));
      }),
    );

  const admin = Router();
  // Used by the smpp-server: a bind's system_id and password as Basic credentials, and the
  // address it binds from, checked behind login limits of the binds' own (per name and per
  // address), so wrong binds and wrong HTTP logins never lock each other out.
  if (deps.internalToken !== undefined && deps.smppBinds !== undefined) {
    const binds = deps.smppBinds;
    router.post(
      '/internal/v1/smpp-bind',
      requireInternalToken(deps.internalToken),
      asyncRoute(async (req, res) => {
        const basic = parseBasic(req.headers.authorization ?? '');
        if (!basic) throw HttpError.unauthorized();
        const forwarded = req.headers[CLIENT_ADDRESS_HEADER];
        const address =
          typeof forwarded === 'string' && isIP(forwarded) !== 0 ? forwarded : undefined;
        res.json(await binds.check(basic.username, basic.password, address));
      }),
    );
  }

  const audit = new AdminAudit(deps.trustedProxies, deps.db, deps.logger);
  admin.use(authenticateAdmin(deps.db, deps.adminToken, deps.sessions));
  admin.use(audit.recorder());
  admin.use(createPriceImportRoute(deps.db, audit));
  // Amounts and counts must not be rounded on the way in, so numbers are read exactly.
  admin.use(jsonBody(deps.maxBodyBytes, { exactNumbers: true }));

  admin.post(
    '/accounts',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const input = parseInput(CreateAccountSchema, req.body);
      // Opening credit is credit, and so is a rate (a rate of 0 sends for nothing): a token
      // without that scope makes accounts with no credit, at the default rate.
      const credited =
        input.balance !== '0' ||
        (input.sms_count !== undefined && input.sms_count !== '0') ||
        input.rate !== undefined;
      if (credited && !holdsScope(res, 'credit')) throw missingScope('credit');
      const account = await store.createAccount(
        input,
        await hasher.hash(input.password),
        audit.hook(req, res, 201),
      );
      if (!account)
        throw new HttpError('CONFLICT', `Account ${input.username} already exists`, {
          field: 'username',
        });
      res.status(201).json(account);
    }),
  );

  admin.get(
    '/accounts/:username',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const account = await store.getAccount(username);
      if (!account) throw HttpError.notFound(`No account ${username}`);
      res.json(account);
    }),
  );

  admin.post(
    '/accounts/:username/credit',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const credit = parseInput(CreditSchema, req.body);
      let account;
      try {
        account = await store.credit(username, credit, audit.hook(req, res));
      } catch (err) {
        if (err instanceof RangeError) throw HttpError.invalid('amount', err.message);
        throw err;
      }
      if (!account) throw HttpError.notFound(`No account ${username}`);
      res.json(account);
    }),
  );

  admin.get(
    '/accounts/:username/callback-secret',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const secret = await store.callbackSecret(username);
      if (!secret) throw HttpError.notFound(`No account ${username}`);
      // Reading a secret is recorded: whoever read it can sign as the gateway.
      await audit.recordRead(req, res);
      res.set('Cache-Control', 'no-store').json(secret);
    }),
  );

  admin.post(
    '/accounts/:username/callback-secret',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const { grace_seconds } = parseInput(RotateCallbackSecretSchema, req.body ?? {});
      const secret = await store.rotateCallbackSecret(
        username,
        grace_seconds ?? DEFAULT_SECRET_GRACE_SECONDS,
        audit.hook(req, res),
      );
      if (!secret) throw HttpError.notFound(`No account ${username}`);
      res.set('Cache-Control', 'no-store').json(secret);
    }),
  );

  admin.get(
    '/accounts/:username/applications',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const account = await store.getAccount(username);
      if (!account) throw HttpError.notFound(`No account ${username}`);
      res.json(await applicationList(deps.db, account.id));
    }),
  );

  admin.post(
    '/accounts/:username/applications',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const { name } = parseInput(CreateApplicationSchema, req.body ?? {});
      const account = await store.getAccount(username);
      if (!account) throw HttpError.notFound(`No account ${username}`);
      await refuseOverLimit(deps.db, account.id);
      const made = await newApplicationCredentials(hasher);
      await store.createApplication(
        account.id,
        made.clientId,
        made.secretHash,
        name ?? null,
        audit.hook(req, res, 201),
      );
      res
        .status(201)
        .json({ client_id: made.clientId, client_secret: made.clientSecret, name: name ?? null });
    }),
  );

  admin.delete(
    '/accounts/:username/applications/:clientId',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const clientId = parseInput(ClientIdSchema, req.params['clientId']);
      const account = await store.getAccount(username);
      if (!account || !(await store.revokeApplication(account.id, clientId, audit.hook(req, res))))
        throw HttpError.notFound(`No application ${clientId} for ${username}`);
      await deps.announcer.announce(account.id, 'application-revoked', clientId);
      res.status(204).end();
    }),
  );

  admin.use(createSenderRoutes(deps.senders, audit));
  admin.use(createBillingRoutes(deps.db, audit));
  admin.use(createConnectorCostRoutes(deps.db, audit));
  admin.use(createAdminTokenRoutes(deps.db, audit));
  admin.use(createInboundAdminRoutes(deps.db));
  admin.use(createBatchAdminRoutes(deps.db, audit));
  admin.use(createStatsRoutes(deps.db, deps.searchMaxDays));
  admin.use(createCdrRoutes(deps.db, audit, deps.searchMaxDays, deps.logger));
  admin.use(createOperatorViewRoutes({ db: deps.db, audit, searchMaxDays: deps.searchMaxDays }));
  admin.use(createConnectorAdminRoutes(deps.db, deps.connectors, deps.logger));
  addAccountControlRoutes(admin, { store, hasher, announcer: deps.announcer, audit });

  router.use('/admin/v1', admin);
  admin.use(
    createSmppAccessRoutes({ db: deps.db, store, hasher, announcer: deps.announcer, audit }),
  );
  return router;
}
