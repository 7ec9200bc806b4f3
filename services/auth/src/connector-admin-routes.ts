import { Router, type Request } from 'express';
import {
  ConnectorInputSchema,
  ConnectorNameSchema,
  ConnectorUpdateSchema,
  MtRouteInputSchema,
  RouteNameSchema,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { parseHttpSmscUrl, parseSmscUrl } from '@smsgw/smsc';
import {
  countWaitingForConnector,
  deleteConnector,
  deleteMtRoute,
  getConnector,
  getMtRoute,
  insertConnector,
  listConnectors,
  listConnectorStatus,
  listMtRoutes,
  lockConnectors,
  putMtRoute,
  routesUsingConnector,
  setDesiredState,
  updateConnector,
} from '@smsgw/store';
import { connectorView, routeView } from './connector-view';

/** A dispatcher that has not reported for this long is gone (it reports every 2 s). */
const STATUS_FRESH_SECONDS = 10;

/**
 * The URL must be one a dispatcher can open: the same parsers, so a typo is a 400 now. A `tls_ca`
 * file is read where dispatchers run, which need not be this host, so only its presence counts here.
 */
function checkUrl(url: string): void {
  try {
    if (/^https?:/.test(url)) {
      parseHttpSmscUrl(url);
      return;
    }
    const parsed = new URL(url);
    if (parsed.protocol === 'smpps:' && parsed.searchParams.has('tls_ca')) {
      if (parsed.searchParams.get('tls_ca') === '') throw new Error('tls_ca is empty');
      parsed.searchParams.delete('tls_ca');
    }
    parseSmscUrl(parsed.toString());
  } catch (err) {
    throw HttpError.invalid('url', describeUrlError(err));
  }
}

/** The parser's reason without its SMSC_URL prefix; the URL itself is never echoed. */
function describeUrlError(err: unknown): string {
  if ((err as { code?: string }).code === 'ERR_INVALID_URL') return 'not a URL';
  return (err as Error).message.replace(/^SMSC_URL: /, '');
}

/** The {name} of the path; a bad one is a 400 naming `name` (parseInput would name the body). */
function nameInPath(schema: typeof ConnectorNameSchema, req: Request) {
  const parsed = schema.safeParse(req.params['name']);
  if (!parsed.success) throw HttpError.invalid('name', parsed.error.issues[0].message);
  return parsed.data;
}

/**
 * Under the admin router (admin token checked, JSON body read): connectors and MT routes
 * (docs/routing.md). Dispatchers and gateways read the tables within seconds of a change. A
 * connector's password is never returned.
 */
export function createConnectorAdminRoutes(db: Db): Router {
  const router = Router();
  const connectorName = (req: Request) => nameInPath(ConnectorNameSchema, req);
  const routeName = (req: Request) => nameInPath(RouteNameSchema, req);

  const show = async (name: string) => {
    const connector = await getConnector(db, name);
    if (!connector) throw HttpError.notFound(`No connector ${name}`);
    const [status, routes] = await Promise.all([
      listConnectorStatus(db, STATUS_FRESH_SECONDS),
      listMtRoutes(db),
    ]);
    return connectorView(connector, status, routes);
  };

  router.get(
    '/connectors',
    asyncRoute(async (_req, res) => {
      const [connectors, status, routes] = await Promise.all([
        listConnectors(db),
        listConnectorStatus(db, STATUS_FRESH_SECONDS),
        listMtRoutes(db),
      ]);
      res.json({ data: connectors.map((c) => connectorView(c, status, routes)) });
    }),
  );

  router.get(
    '/connectors/:name',
    asyncRoute(async (req, res) => {
      res.json({ data: await show(connectorName(req)) });
    }),
  );

  router.post(
    '/connectors',
    asyncRoute(async (req, res) => {
      const input = parseInput(ConnectorInputSchema, req.body);
      checkUrl(input.url);
      const created = await insertConnector(db, {
        name: input.name,
        url: input.url,
        binds: input.binds,
        bind_mode: input.bind,
      });
      if (!created) throw new HttpError('CONFLICT', `A connector named ${input.name} exists`);
      res.status(201).json({ data: await show(input.name) });
    }),
  );

  router.patch(
    '/connectors/:name',
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      const input = parseInput(ConnectorUpdateSchema, req.body);
      if (input.url !== undefined) checkUrl(input.url);
      const updated = await updateConnector(db, name, {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.binds !== undefined && { binds: input.binds }),
        ...(input.bind !== undefined && { bind_mode: input.bind }),
      });
      if (!updated) throw HttpError.notFound(`No connector ${name}`);
      res.json({ data: await show(name) });
    }),
  );

  router.delete(
    '/connectors/:name',
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
    asyncRoute(async (_req, res) => {
      res.json({ data: (await listMtRoutes(db)).map(routeView) });
    }),
  );

  router.get(
    '/routes/:name',
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const route = await getMtRoute(db, name);
      if (!route) throw HttpError.notFound(`No route ${name}`);
      res.json({ data: routeView(route) });
    }),
  );

  router.put(
    '/routes/:name',
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const input = parseInput(MtRouteInputSchema, req.body);
      const named = input.connectors.map((c) => c.connector);
      // The connectors stay locked until the route is stored, so none is deleted in between.
      const route = await db.transaction(async (tx) => {
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
          price: input.price ?? null,
        });
        if (!stored)
          throw new HttpError('CONFLICT', `Another route has position ${input.position}`);
        return (await getMtRoute(tx, name))!;
      });
      res.json({ data: routeView(route) });
    }),
  );

  router.delete(
    '/routes/:name',
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      if (!(await deleteMtRoute(db, name))) throw HttpError.notFound(`No route ${name}`);
      res.json({ data: { name, deleted: true } });
    }),
  );

  return router;
}
