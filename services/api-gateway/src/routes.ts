import { compose, type Middleware } from 'compose-middleware';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  SendRequestSchema,
  buildOpenApiDocument,
  type Principal,
  type BalanceResult,
  type BatchResult,
  type BatchStatus,
  type MessageStatus,
  type SmppTlvDefinition,
} from '@smsgw/contracts';
import {
  asyncRoute,
  HttpError,
  createApiDocsRouter,
  jsonBody,
  jsonMediaGuard,
  parseInput,
  type Db,
  type Logger,
  writeJson,
} from '@smsgw/kit';
import { CODING_NAMES } from '@smsgw/smsc';
import { crossSiteGuard } from './cross-site-guard';
import type { BatchIntake } from './batch-intake';
import type { BatchStore } from './batch-store';
import { createCallbackSecretRoutes } from './callback-secret-routes';
import { createInboundRoutes } from './inbound-routes';
import { createStatsRoutes } from './stats-routes';
import {
  createHttpInboundRoutes,
  HTTP_INBOUND_PATH,
  type HttpInboundDeps,
} from './http-inbound-routes';
import type { RequestCaller } from './request-caller';
import { fingerprintOf, type IdempotentRequests } from './idempotency';
import { SEND_PATH, type SendHandler } from './send-handler';
import type { ParamsCaller } from './request-caller';
import { createJasminHttpRoutes, jasminSendAnswerer } from './edge/jasmin-http-routes';
import {
  createKannelSendsmsRoutes,
  KANNEL_SENDSMS_PATH,
  kannelSendsmsAnswerer,
} from './edge/kannel-sendsms-routes';
import type { TextAnswerer } from './edge/legacy-hot-route';
import type { MtRouter } from '@smsgw/routing';
import {
  planMessage,
  routeOrRefuse,
  withoutRouting,
  type MessageStore,
  type SendAcceptor,
} from '@smsgw/acceptance';
import { createJasminRestRoutes } from './jasmin-rest-routes';
import { createMessageLogRoutes } from './message-log-routes';
import type { OwnPortName } from './edge/own-ports';

export interface GatewayRoutesDeps {
  caller: RequestCaller;
  /** Credentials given as parameters (Jasmin's HTTP interface, Kannel's sendsms). */
  paramsCaller: ParamsCaller;
  send: SendHandler;
  accept: SendAcceptor;
  logger: Logger;
  store: MessageStore;
  batches: BatchIntake;
  batchStore: BatchStore;
  idempotency: IdempotentRequests;
  /** For the account's own callback secret. */
  db: Db;
  maxBodyBytes: number;
  maxBatchBytes: number;
  maxParts: number;
  /** Browser origins allowed to call /secure/ (CORS); any other cross-site request is a 403. */
  corsAllowedOrigins: readonly string[];
  /** Route and connector names in customers' answers (SHOW_ROUTES_TO_CUSTOMERS). */
  showRoutes: boolean;
  /** SEARCH_MAX_DAYS. */
  searchMaxDays: number;
  /** The `meta-data` keys sendsms clients may give (KANNEL_SMPP_TLVS). */
  kannelTlvs: readonly SmppTlvDefinition[];
  httpInbound: HttpInboundDeps;
  router: MtRouter;
}

/** What Jasmin's HTTP interface and Kannel's sendsms both need, wherever they are served. */
function legacyDeps(deps: GatewayRoutesDeps) {
  return {
    caller: deps.paramsCaller,
    accept: deps.accept,
    store: deps.store,
    maxBodyBytes: deps.maxBodyBytes,
    corsAllowedOrigins: deps.corsAllowedOrigins,
    logger: deps.logger,
    kannelTlvs: deps.kannelTlvs,
  };
}

/** Jasmin's HTTP interface and Kannel's sendsms, each also served on a port of its own (edge/own-ports.ts). */
export function createOwnPortRoutes(deps: GatewayRoutesDeps): Record<OwnPortName, Router> {
  const common = legacyDeps(deps);
  const jasmin = Router();
  jasmin.use(
    createJasminHttpRoutes({
      ...common,
      store: deps.store,
      router: deps.router,
      maxParts: deps.maxParts,
    }),
  );
  return { 'jasmin-http': jasmin, 'kannel-sendsms': createKannelSendsmsRoutes(common) };
}

/** The sends of Jasmin's HTTP interface and Kannel's sendsms by path, for their hot route. */
export function createLegacyAnswerers(
  deps: GatewayRoutesDeps,
): Record<OwnPortName, Record<string, TextAnswerer>> {
  const common = legacyDeps(deps);
  return {
    'jasmin-http': {
      '/send': jasminSendAnswerer({
        ...common,
        store: deps.store,
        router: deps.router,
        maxParts: deps.maxParts,
      }),
    },
    'kannel-sendsms': { [KANNEL_SENDSMS_PATH]: kannelSendsmsAnswerer(common) },
  };
}

/** Jasmin's HTTP interface and Kannel's sendsms on the gateway's port. */
export function createLegacyRoutes(deps: GatewayRoutesDeps): Router {
  const router = Router();
  const own = createOwnPortRoutes(deps);
  router.use(own['jasmin-http']);
  router.use(own['kannel-sendsms']);
  return router;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createGatewayRoutes(deps: GatewayRoutesDeps): Router {
  const router = Router();

  // Authentication comes before the body is read: an unauthenticated caller gets 401, not 400.
  const authenticate: RequestHandler = (req, res, next) => {
    deps.caller(req).then((principal) => {
      res.locals['principal'] = principal;
      next();
    }, next);
  };
  const accountId = (res: Response): string =>
    (res.locals['principal'] as { accountId: string }).accountId;
  const username = (res: Response): string =>
    (res.locals['principal'] as { username: string }).username;

  // Upstreams authenticate with their connector's secret, not an account's credentials. Mounted
  // on its path, so that other requests pass it by without entering its router.
  router.use(
    HTTP_INBOUND_PATH,
    createHttpInboundRoutes(deps.db, deps.httpInbound, deps.maxBodyBytes),
  );
  // Jasmin's and Kannel's own interfaces, on their own paths, through the same guards.
  router.use(createLegacyRoutes(deps));
  // One layer, not one per guard: every request of /secure/ walks it. (Our guards never call
  // next('route'), the one thing compose's type of `next` leaves out.)
  const secureGuards = [...crossSiteGuard(deps.corsAllowedOrigins), authenticate];
  router.use('/secure', compose(...(secureGuards as Middleware<Request, Response>[])));

  router.post(
    SEND_PATH,
    ...jsonBody(deps.maxBodyBytes),
    deps.idempotency.guard('send', accountId),
    asyncRoute(async (req, res) => {
      writeJson(res, 200, await deps.send(res.locals['principal'] as Principal, req.body));
    }),
  );

  router.post(
    '/secure/sendbatch',
    jsonMediaGuard,
    // Read as it arrives (batch-reader.ts), not parsed whole: a large batch must not stall others.
    asyncRoute(async (req, res) => {
      const sender = { accountId: accountId(res), username: username(res) };
      const length = req.headers['content-length'];
      const headers = {
        contentLength: length === undefined ? undefined : Number(length),
        contentEncoding: req.headers['content-encoding'],
      };
      const key = deps.idempotency.keyOf(req);
      const read = async (): Promise<{ batch: unknown; release: () => void; print?: string }> => {
        if (key === undefined) return deps.batches.read(sender, req, headers);
        // The key is decided once the body is read, by the fingerprint of its bytes as sent; until
        // then the batch is read as any other, bounded and checked against the account's credit
        // (unless the key is taken: its answer is replayed whatever the account has now).
        const raw = fingerprintOf('sendbatch');
        const checkCredit = !(await deps.idempotency.taken(sender.accountId, key));
        const batch = await deps.batches.read(sender, req, headers, { raw, checkCredit });
        return { ...batch, print: raw.digest('hex') };
      };
      const batch = await read().catch((err: unknown) => {
        // Refused before the end of the body: the rest is not read, the connection closes.
        if (!req.complete) res.setHeader('Connection', 'close');
        throw err;
      });
      try {
        if (key !== undefined && batch.print !== undefined) {
          if (!(await deps.idempotency.begin(res, sender.accountId, key, batch.print))) return;
        }
        const body: BatchResult = { data: await deps.batches.accept(sender, batch.batch) };
        res.json(body);
      } finally {
        batch.release();
      }
    }),
  );

  const batchId = (req: Request): string => {
    const id = String(req.params['id']);
    if (!UUID.test(id)) throw HttpError.notFound(`No batch ${id}`);
    return id.toLowerCase();
  };

  router.get(
    '/secure/batches/:id',
    asyncRoute(async (req, res) => {
      const status = await deps.batchStore.status(accountId(res), batchId(req));
      if (!status) throw HttpError.notFound(`No batch ${String(req.params['id'])}`);
      const body: BatchStatus = { data: status };
      res.json(body);
    }),
  );

  router.delete(
    '/secure/batches/:id',
    asyncRoute(async (req, res) => {
      const id = batchId(req);
      const result = await deps.batchStore.cancel(accountId(res), id);
      if (result.outcome !== 'cancelled') {
        throw result.outcome === 'not_found'
          ? HttpError.notFound(`No batch ${id}`)
          : new HttpError('CONFLICT', 'The batch is already completed or cancelled');
      }
      const status = await deps.batchStore.status(accountId(res), id);
      res.json({ data: { ...status, refunded: result.refunded } });
    }),
  );

  // Ours: what a message would cost, before sending it (same encoder, same price as /secure/send).
  router.post(
    '/secure/rate',
    ...jsonBody(deps.maxBodyBytes),
    asyncRoute(async (req, res) => {
      const request = parseInput(SendRequestSchema, req.body);
      const plan = planMessage(request, deps.maxParts);
      const routing = routeOrRefuse(deps.router, {
        to: request.to,
        accountUsername: username(res),
        accountId: accountId(res),
        from: request.from ?? null,
        tags: request.tags,
      });
      const price = await deps.store.price(accountId(res), plan.segments, routing.price);
      if (!price) throw HttpError.unauthorized('Account no longer exists');
      res.json({
        data: {
          coding: plan.coding,
          encoding: CODING_NAMES[plan.coding] ?? String(plan.coding),
          segments: plan.segments,
          ...(deps.showRoutes ? { route: routing.route } : {}),
          ...price,
        },
      });
    }),
  );

  router.get(
    '/secure/balance',
    asyncRoute(async (_req, res) => {
      const balance = await deps.store.balance(accountId(res));
      if (!balance) throw HttpError.unauthorized('Account no longer exists');
      const body: BalanceResult = { data: balance };
      res.json(body);
    }),
  );

  router.use(
    createMessageLogRoutes({
      db: deps.db,
      accountId,
      showRoutes: deps.showRoutes,
      searchMaxDays: deps.searchMaxDays,
    }),
  );

  router.get(
    '/secure/messages/:id',
    asyncRoute(async (req, res) => {
      const id = String(req.params['id']);
      const status = UUID.test(id)
        ? await deps.store.status(accountId(res), id.toLowerCase())
        : undefined;
      if (!status) throw HttpError.notFound(`No message ${id}`);
      const body: MessageStatus = { data: deps.showRoutes ? status : withoutRouting(status) };
      res.json(body);
    }),
  );

  router.use(
    createJasminRestRoutes({ store: deps.store, router: deps.router, maxParts: deps.maxParts }),
  );
  router.use(createCallbackSecretRoutes(deps.db, accountId, deps.maxBodyBytes));
  router.use(createInboundRoutes(deps.db, accountId, deps.maxBodyBytes));
  router.use(
    createStatsRoutes({
      db: deps.db,
      accountId,
      showRoutes: deps.showRoutes,
      searchMaxDays: deps.searchMaxDays,
    }),
  );

  // Last: every request walks the routes in order, and /secure/send is the one that comes by the thousand.
  router.use(createApiDocsRouter(buildOpenApiDocument()));
  return router;
}
