import { Router, type Request } from 'express';
import {
  ConnectorInputSchema,
  ConnectorNameSchema,
  ConnectorUpdateSchema,
  MtRouteInputSchema,
  RouteMatchQuerySchema,
  RouteNameSchema,
  TlvListInputSchema,
  type RouteMatch,
} from '@smsgw/contracts';
import {
  asyncRoute,
  HttpError,
  parseInput,
  UrlGuard,
  UrlRefusedError,
  type Db,
  type Logger,
  type SecretBox,
} from '@smsgw/kit';
import {
  insecureTransportWarning,
  parseHttpSmscUrl,
  parseSmscUrl,
  transportSecurity,
} from '@smsgw/smsc';
import {
  countWaitingForConnector,
  findAccountByUsername,
  listCustomerGroups,
  deleteConnector,
  deleteMtRoute,
  getConnector,
  getMtRoute,
  insertConnector,
  listConnectors,
  listConnectorStatus,
  listMtRoutes,
  lockConnectors,
  lockMtRoutePrice,
  putMtRoute,
  connectorTlvs,
  routesUsingConnector,
  routeTlvs,
  setConnectorTlvs,
  setDesiredState,
  setRouteTlvs,
  updateConnector,
} from '@smsgw/store';
import { RouteTable } from '@smsgw/routing';
import { connectorView, routeView } from './connector-view';
import { holdsScope, missingScope, requireScope } from './admin-scopes';

/** A dispatcher that has not reported for this long is gone (it reports every 2 s). */
const STATUS_FRESH_SECONDS = 10;

/** What the connector admin API needs besides the database. */
export interface ConnectorAdminSettings {
  /** CONNECTOR_SECRET_KEY's box: passwords are stored sealed. */
  secrets: SecretBox;
  /** CONNECTOR_ALLOWED_HOSTS: private or loopback hosts an HTTP connector may name. */
  allowedHosts: readonly string[];
}

/**
 * The URL must be one a dispatcher can open: the same parsers, so a typo is a 400 now. A `tls_ca`
 * file is read where dispatchers run, which need not be this host, so only its name is judged
 * here. An HTTP upstream must not resolve to an internal address (dispatchers check again at each
 * request).
 */
async function checkUrl(url: string, guard: UrlGuard): Promise<void> {
  try {
    if (/^https?:/.test(url)) {
      parseHttpSmscUrl(url);
      await guard.check(url);
      return;
    }
    parseSmscUrl(url, { readCa: false });
  } catch (err) {
    throw HttpError.invalid('url', describeUrlError(err));
  }
}

/** The parser's reason without its SMSC_URL prefix; the URL itself is never echoed. */
function describeUrlError(err: unknown): string {
  if ((err as { code?: string }).code === 'ERR_INVALID_URL') return 'not a URL';
  if (err instanceof UrlRefusedError) return `the upstream may not be reached: ${err.message}`;
  return (err as Error).message.replace(/^SMSC_URL: /, '');
}

/** A stored TLV as the admin API shows it: the tag in hex as operators write it, the octets too. */
function tlvView(tlv: { tag: number; value: string }) {
  return {
    tag: `0x${tlv.tag.toString(16).padStart(4, '0')}`,
    length: tlv.value.length / 2,
    value_hex: tlv.value,
  };
}

/** The {name} of the path; a bad one is a 400 naming `name` (parseInput would name the body). */
function nameInPath(schema: typeof ConnectorNameSchema, req: Request) {
  const parsed = schema.safeParse(req.params['name']);
  if (!parsed.success) throw HttpError.invalid('name', parsed.error.issues[0].message);
  return parsed.data;
}

/** The customer group of the account a route match names, for routes that serve groups. */
async function groupOfAccount(db: Db, username: string | undefined): Promise<string | null> {
  if (username === undefined) return null;
  const account = await findAccountByUsername(db, username);
  if (!account?.group_id) return null;
  return (await listCustomerGroups(db)).find((g) => g.id === account.group_id)?.name ?? null;
}

/**
 * Under the admin router (admin token checked, JSON body read): connectors and MT routes
 * (docs/routing.md). Dispatchers and gateways read the tables within seconds of a change. A
 * connector's password is never returned.
 */
export function createConnectorAdminRoutes(
  db: Db,
  settings: ConnectorAdminSettings,
  logger?: Logger,
): Router {
  const router = Router();
  const { secrets } = settings;
  const guard = new UrlGuard(settings.allowedHosts, 'CONNECTOR_ALLOWED_HOSTS');
  // An admin storing a connector that exposes its traffic hears it now, not at the next incident.
  const warnIfInsecure = (name: string, url: string) => {
    const security = transportSecurity(url);
    const warning = insecureTransportWarning(security, new URL(url).hostname);
    if (warning) logger?.warn({ connector: name, transport: security }, warning);
  };
  const connectorName = (req: Request) => nameInPath(ConnectorNameSchema, req);
  const routeName = (req: Request) => nameInPath(RouteNameSchema, req);

  const show = async (name: string) => {
    const connector = await getConnector(db, name, secrets);
    if (!connector) throw HttpError.notFound(`No connector ${name}`);
    const [status, routes] = await Promise.all([
      listConnectorStatus(db, STATUS_FRESH_SECONDS),
      listMtRoutes(db),
    ]);
    return connectorView(connector, status, routes);
  };

  router.get(
    '/connectors',
    requireScope('connectors'),
    asyncRoute(async (_req, res) => {
      const [connectors, status, routes] = await Promise.all([
        listConnectors(db, secrets),
        listConnectorStatus(db, STATUS_FRESH_SECONDS),
        listMtRoutes(db),
      ]);
      res.json({ data: connectors.map((c) => connectorView(c, status, routes)) });
    }),
  );

  router.get(
    '/connectors/:name',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      res.json({ data: await show(connectorName(req)) });
    }),
  );

  router.post(
    '/connectors',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const input = parseInput(ConnectorInputSchema, req.body);
      await checkUrl(input.url, guard);
      const created = await insertConnector(db, secrets, {
        name: input.name,
        url: input.url,
        binds: input.binds,
        bind_mode: input.bind,
      });
      if (!created) throw new HttpError('CONFLICT', `A connector named ${input.name} exists`);
      warnIfInsecure(input.name, input.url);
      res.status(201).json({ data: await show(input.name) });
    }),
  );

  router.patch(
    '/connectors/:name',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      const input = parseInput(ConnectorUpdateSchema, req.body);
      if (input.url !== undefined) await checkUrl(input.url, guard);
      const updated = await updateConnector(db, secrets, name, {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.binds !== undefined && { binds: input.binds }),
        ...(input.bind !== undefined && { bind_mode: input.bind }),
      });
      if (!updated) throw HttpError.notFound(`No connector ${name}`);
      if (input.url !== undefined) warnIfInsecure(name, input.url);
      res.json({ data: await show(name) });
    }),
  );

  router.delete(
    '/connectors/:name',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      // Locked first, so a route stored meanwhile cannot come to name a connector that is gone.
      await db.transaction(async (tx) => {
        if ((await lockConnectors(tx, [name], 'update')).length === 0)
          throw HttpError.notFound(`No connector ${name}`);
        const using = await routesUsingConnector(tx, name);
        if (using.length > 0)
          throw new HttpError('CONFLICT', `Routes use connector ${name}: ${using.join(', ')}`);
        // Its messages would wait for ever: the operator routes them elsewhere or lets them go first.
        const waiting = await countWaitingForConnector(tx, name);
        if (waiting > 0)
          throw new HttpError('CONFLICT', `${waiting} messages still wait for connector ${name}`);
        await deleteConnector(tx, name);
      });
      res.json({ data: { name, deleted: true } });
    }),
  );

  for (const action of ['stop', 'start'] as const) {
    router.post(
      `/connectors/:name/${action}`,
      requireScope('connectors'),
      asyncRoute(async (req, res) => {
        const name = connectorName(req);
        if (!(await setDesiredState(db, name, action === 'stop' ? 'stopped' : 'started')))
          throw HttpError.notFound(`No connector ${name}`);
        res.json({ data: await show(name) });
      }),
    );
  }

  router.get(
    '/routes',
    requireScope('routes'),
    asyncRoute(async (_req, res) => {
      res.json({ data: (await listMtRoutes(db)).map(routeView) });
    }),
  );

  // Before /routes/:name, which would take "match" for a route's name.
  router.get(
    '/routes/match',
    requireScope('routes'),
    asyncRoute(async (req, res) => {
      const q = parseInput(RouteMatchQuerySchema, req.query);
      const rows = await listMtRoutes(db);
      const table = new RouteTable(rows);
      const taken = table.routeFor(
        {
          to: q.to,
          accountUsername: q.account,
          accountGroup: await groupOfAccount(db, q.account),
          from: q.from ?? null,
          tags: q.tags,
        },
        q.at === undefined ? new Date() : new Date(q.at),
      );
      const row = taken && rows.find((r) => r.name === taken.name);
      const body: RouteMatch = {
        data: {
          route: row ? routeView(row) : null,
          no_routes: rows.length === 0,
          unusable: table.unusable,
        },
      };
      res.json(body);
    }),
  );

  router.get(
    '/routes/:name',
    requireScope('routes'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const route = await getMtRoute(db, name);
      if (!route) throw HttpError.notFound(`No route ${name}`);
      res.json({ data: routeView(route) });
    }),
  );

  router.put(
    '/routes/:name',
    requireScope('routes'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const input = parseInput(MtRouteInputSchema, req.body);
      const price = input.price ?? null;
      const named = input.connectors.map((c) => c.connector);
      // The connectors stay locked until the route is stored, so none is deleted in between.
      const route = await db.transaction(async (tx) => {
        // A route's price replaces the rate of the accounts it takes, so giving, changing or taking
        // one away is credit; PUT replaces the route, so a body without a price takes it away. The
        // route stays locked until it is stored, so no put of another token comes in between.
        const { changes } = await lockMtRoutePrice(tx, name, price);
        if (changes && !holdsScope(res, 'credit')) throw missingScope('credit');
        const known = new Set(await lockConnectors(tx, named, 'share'));
        const unknown = named.filter((c) => !known.has(c));
        if (unknown.length > 0)
          throw HttpError.invalid('connectors', `no connector ${unknown.join(', ')}`);
        const stored = await putMtRoute(tx, {
          name,
          position: input.position,
          kind: input.kind,
          targets: input.connectors,
          filters: input.filters,
          reroute_on: input.reroute_on,
          price,
        });
        if (!stored)
          throw new HttpError('CONFLICT', `Another route has position ${input.position}`);
        return (await getMtRoute(tx, name))!;
      });
      res.json({ data: routeView(route) });
    }),
  );

  // TLVs: a connector's defaults and a route's overrides (docs/routing.md § TLVs). Dispatchers
  // read them again within a second or so of a change.
  const tlvTargets = [
    {
      path: '/connectors/:name/tlvs',
      scope: 'connectors',
      noun: 'connector',
      name: connectorName,
      read: connectorTlvs,
      write: setConnectorTlvs,
    },
    {
      path: '/routes/:name/tlvs',
      scope: 'routes',
      noun: 'route',
      name: routeName,
      read: routeTlvs,
      write: setRouteTlvs,
    },
  ] as const;
  for (const target of tlvTargets) {
    router.get(
      target.path,
      requireScope(target.scope),
      asyncRoute(async (req, res) => {
        const name = target.name(req);
        const exists =
          target.noun === 'connector'
            ? (await getConnector(db, name, secrets)) !== undefined
            : (await getMtRoute(db, name)) !== undefined;
        if (!exists) throw HttpError.notFound(`No ${target.noun} ${name}`);
        const tlvs = (await target.read(db)).get(name) ?? [];
        res.json({ data: { name, tlvs: tlvs.map(tlvView) } });
      }),
    );
    router.put(
      target.path,
      requireScope(target.scope),
      asyncRoute(async (req, res) => {
        const name = target.name(req);
        const input = parseInput(TlvListInputSchema, req.body);
        if (!(await target.write(db, name, input.tlvs)))
          throw HttpError.notFound(`No ${target.noun} ${name}`);
        res.json({ data: { name, tlvs: input.tlvs.map(tlvView) } });
      }),
    );
  }

  router.delete(
    '/routes/:name',
    requireScope('routes'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      if (!(await deleteMtRoute(db, name))) throw HttpError.notFound(`No route ${name}`);
      res.json({ data: { name, deleted: true } });
    }),
  );

  return router;
}
