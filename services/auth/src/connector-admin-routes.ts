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
  insertConnector,
  listConnectors,
  listConnectorStatus,
  listMtRoutes,
  putMtRoute,
  updateConnector,
  type ConnectorRow,
  type ConnectorStatusRow,
  type MtRouteRow,
} from '@smsgw/store';
import { maskConnectorUrl } from './connector-url-mask';

/** A dispatcher that has not reported for this long is gone (it reports every 2 s). */
const STATUS_FRESH_SECONDS = 10;

/** The URL must be one a dispatcher can open: the same parsers, so a typo is a 400 now. */
function checkUrl(url: string): void {
  try {
    if (/^https?:/.test(url)) parseHttpSmscUrl(url);
    else parseSmscUrl(url);
  } catch (err) {
    throw HttpError.invalid('url', (err as Error).message.replace(/^SMSC_URL: /, ''));
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function connectorView(c: ConnectorRow, status: ConnectorStatusRow[], routes: MtRouteRow[]) {
  const own = status.filter((s) => s.connector === c.name);
  const bound = own.reduce((n, s) => n + s.bound, 0);
  const lastError = own
    .filter((s) => s.last_error !== null)
    .sort((a, b) => (b.last_error_at?.getTime() ?? 0) - (a.last_error_at?.getTime() ?? 0))[0];
  const ups = own.flatMap((s) => (s.up_since ? [s.up_since.getTime()] : []));
  const downs = own.flatMap((s) => (s.down_since ? [s.down_since.getTime()] : []));
  return {
    name: c.name,
    url: maskConnectorUrl(c.url),
    binds: c.binds,
    bind: c.bind_mode,
    desiredState: c.desired_state,
    state: c.desired_state === 'stopped' ? 'stopped' : bound > 0 ? 'up' : 'down',
    sessions: bound,
    windowInUse: own.reduce((n, s) => n + s.window_in_use, 0),
    waiting: own.reduce((n, s) => n + s.waiting, 0),
    rate: Math.round(own.reduce((n, s) => n + s.rate, 0) * 10) / 10,
    lastError: lastError?.last_error ?? null,
    lastErrorAt: iso(lastError?.last_error_at ?? null),
    upSince: bound > 0 && ups.length > 0 ? new Date(Math.min(...ups)).toISOString() : null,
    downSince: bound === 0 && downs.length > 0 ? new Date(Math.min(...downs)).toISOString() : null,
    routes: routes.filter((r) => r.targets.some((t) => t.connector === c.name)).map((r) => r.name),
    holders: own.map((s) => ({
      holder: s.holder,
      bound: s.bound,
      windowInUse: s.window_in_use,
      waiting: s.waiting,
      rate: s.rate,
      lastError: s.last_error,
      reportedAt: s.reported_at.toISOString(),
    })),
  };
}

function routeView(r: MtRouteRow) {
  return {
    name: r.name,
    position: r.position,
    kind: r.kind,
    connectors: r.targets,
    filters: r.filters,
    reroute_on: r.reroute_on,
    price: r.price,
  };
}

/**
 * Under the admin router (admin token checked, JSON body read): connectors and MT routes
 * (docs/routing.md). Dispatchers and gateways read the tables within seconds of a change. A
 * connector's password is never returned.
 */
export function createConnectorAdminRoutes(db: Db): Router {
  const router = Router();
  const connectorName = (req: Request) => parseInput(ConnectorNameSchema, req.params['name']);
  const routeName = (req: Request) => parseInput(RouteNameSchema, req.params['name']);

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
      const using = (await listMtRoutes(db)).filter((r) =>
        r.targets.some((t) => t.connector === name),
      );
      if (using.length > 0)
        throw new HttpError(
          'CONFLICT',
          `Routes use connector ${name}: ${using.map((r) => r.name).join(', ')}`,
        );
      // Its messages would wait for ever: the operator routes them elsewhere or lets them go first.
      const waiting = await countWaitingForConnector(db, name);
      if (waiting > 0)
        throw new HttpError('CONFLICT', `${waiting} messages still wait for connector ${name}`);
      if (!(await deleteConnector(db, name))) throw HttpError.notFound(`No connector ${name}`);
      res.json({ data: { name, deleted: true } });
    }),
  );

  for (const action of ['stop', 'start'] as const) {
    router.post(
      `/connectors/:name/${action}`,
      asyncRoute(async (req, res) => {
        const name = connectorName(req);
        const desired = action === 'stop' ? 'stopped' : 'started';
        if (!(await updateConnector(db, name, { desired_state: desired })))
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
      const route = (await listMtRoutes(db)).find((r) => r.name === name);
      if (!route) throw HttpError.notFound(`No route ${name}`);
      res.json({ data: routeView(route) });
    }),
  );

  router.put(
    '/routes/:name',
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const input = parseInput(MtRouteInputSchema, req.body);
      const known = new Set((await listConnectors(db)).map((c) => c.name));
      const unknown = input.connectors.filter((c) => !known.has(c.connector));
      if (unknown.length > 0)
        throw HttpError.invalid(
          'connectors',
          `no connector ${unknown.map((c) => c.connector).join(', ')}`,
        );
      const stored = await putMtRoute(db, {
        name,
        position: input.position,
        kind: input.kind,
        targets: input.connectors,
        filters: input.filters,
        reroute_on: input.reroute_on,
        price: input.price ?? null,
      });
      if (!stored) throw new HttpError('CONFLICT', `Another route has position ${input.position}`);
      const route = (await listMtRoutes(db)).find((r) => r.name === name)!;
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
