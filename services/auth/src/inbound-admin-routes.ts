import { createHash } from 'node:crypto';
import { Router, type Request } from 'express';
import {
  ConnectorNameSchema,
  DEFAULT_MO_CONNECTOR,
  InboundSecretSchema,
  intLike,
  MoRouteMatchQuerySchema,
  MoRouteSchema,
  OptOutListQuerySchema,
  OptOutRequestSchema,
  OptOutSettingsSchema,
  RouteNameSchema,
  UsernameSchema,
  type MoRouteList,
  type MoRouteMatch,
  type MoRouteView,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import {
  addOptOut,
  connectorInboundSecrets,
  deleteMoRoute,
  findAccountByUsername,
  getConnector,
  listMoRoutes,
  optOutPage,
  optOutSettingsOf,
  listUnroutedInbound,
  putMoRoute,
  putOptOutSettings,
  removeOptOut,
  setConnectorInboundSecret,
  type MoRouteRow,
  type OptOutSettings,
} from '@smsgw/store';
import { matchMoRoute } from '@smsgw/routing';
import { keywordOf } from '@smsgw/smsc';
import { requireScope } from './admin-scopes';

function routeView(r: MoRouteRow): MoRouteView {
  return {
    name: r.name,
    position: r.position,
    to: r.to_number,
    exact: r.to_exact,
    keyword: r.keyword,
    connector: r.connector,
    any_connector: r.any_connector,
    account: r.username,
    webhook_url: r.webhook_url,
    webhook_format: r.webhook_format,
    kannel_reply: r.kannel_reply,
    smpp: r.smpp,
  };
}

const settingsView = (s: OptOutSettings) => ({
  optout: s.optOutWords,
  optin: s.optInWords,
  transactional: s.transactional,
});

/**
 * Under the admin router (admin token checked, JSON body read): MO routes, the inbound messages
 * no route took, any account's opt-out list and words, and the secrets HTTP upstreams present as
 * their connectors. A route change reaches every notifier within its route cache's lifetime (2 s).
 */
export function createInboundAdminRoutes(db: Db): Router {
  const router = Router();
  const accountOf = async (req: Request) => {
    const name = parseInput(UsernameSchema, req.params['username']);
    const account = await findAccountByUsername(db, name);
    if (!account) throw HttpError.notFound(`No account ${name}`);
    return account;
  };
  const routeName = (req: Request) => parseInput(RouteNameSchema, req.params['name']);
  const connectorName = (req: Request) => parseInput(ConnectorNameSchema, req.params['name']);

  router.get(
    '/mo-routes',
    requireScope('inbound'),
    asyncRoute(async (_req, res) => {
      const body: MoRouteList = { data: (await listMoRoutes(db)).map(routeView) };
      res.json(body);
    }),
  );

  // Before /mo-routes/:name, which would take "match" for a route's name.
  router.get(
    '/mo-routes/match',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const q = parseInput(MoRouteMatchQuerySchema, req.query);
      const keyword = keywordOf(q.text ?? null);
      const route = matchMoRoute(await listMoRoutes(db), {
        to_addr: q.to,
        keyword,
        connector: q.connector,
      });
      const body: MoRouteMatch = { data: { route: route ? routeView(route) : null, keyword } };
      res.json(body);
    }),
  );

  router.get(
    '/mo-routes/:name',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const route = (await listMoRoutes(db)).find((r) => r.name === name);
      if (!route) throw HttpError.notFound(`No MO route ${name}`);
      res.json({ data: routeView(route) });
    }),
  );

  router.put(
    '/mo-routes/:name',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      const input = parseInput(MoRouteSchema, req.body);
      const account = await findAccountByUsername(db, input.account);
      if (!account) throw HttpError.invalid('account', `no account ${input.account}`);
      const stored = await putMoRoute(db, {
        name,
        position: input.position,
        to_number: input.to ?? null,
        to_exact: input.exact,
        keyword: input.keyword ?? null,
        connector: input.any_connector ? null : (input.connector ?? DEFAULT_MO_CONNECTOR),
        any_connector: input.any_connector,
        account_id: account.id,
        webhook_url: input.webhook_url ?? null,
        webhook_format: input.webhook_format,
        kannel_reply: input.kannel_reply,
        smpp: input.smpp,
      });
      if (!stored)
        throw new HttpError('CONFLICT', `Another MO route has position ${input.position}`);
      const route = (await listMoRoutes(db)).find((r) => r.name === name)!;
      res.json({ data: routeView(route) });
    }),
  );

  router.delete(
    '/mo-routes/:name',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const name = routeName(req);
      if (!(await deleteMoRoute(db, name))) throw HttpError.notFound(`No MO route ${name}`);
      res.json({ data: { name, deleted: true } });
    }),
  );

  router.get(
    '/inbound/unrouted',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const limit = parseInput(intLike(1, 500).default(100), req.query['limit']);
      const rows = await listUnroutedInbound(db, limit);
      res.json({
        data: rows.map((m) => ({
          id: m.id,
          from: m.from_addr,
          to: m.to_addr,
          connector: m.connector,
          text: m.content,
          binary: m.hex_content,
          receivedAt: m.received_at.toISOString(),
        })),
      });
    }),
  );

  router.get(
    '/accounts/:username/optouts',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const account = await accountOf(req);
      const q = parseInput(OptOutListQuerySchema, req.query);
      res.json({ data: await optOutPage(db, account.id, q.limit, q.cursor) });
    }),
  );

  router.post(
    '/accounts/:username/optouts',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const account = await accountOf(req);
      const { number } = parseInput(OptOutRequestSchema, req.body);
      const added = await addOptOut(db, account.id, number, 'admin');
      res.status(added ? 201 : 200).json({ data: { number, optedOut: true } });
    }),
  );

  router.delete(
    '/accounts/:username/optouts/:number',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const account = await accountOf(req);
      const { number } = parseInput(OptOutRequestSchema, { number: req.params['number'] });
      if (!(await removeOptOut(db, account.id, number)))
        throw HttpError.notFound(`${number} is not on the opt-out list`);
      res.json({ data: { number, optedOut: false } });
    }),
  );

  router.get(
    '/accounts/:username/optout-words',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const account = await accountOf(req);
      res.json({ data: settingsView(await optOutSettingsOf(db, account.id)) });
    }),
  );

  router.put(
    '/accounts/:username/optout-words',
    requireScope('inbound'),
    asyncRoute(async (req, res) => {
      const account = await accountOf(req);
      const input = parseInput(OptOutSettingsSchema, req.body);
      const settings: OptOutSettings = {
        optOutWords: input.optout,
        optInWords: input.optin,
        transactional: input.transactional,
      };
      await putOptOutSettings(db, account.id, settings);
      res.json({ data: settingsView(settings) });
    }),
  );

  // Only the hash is kept: the secret is shown nowhere, and a new one replaces it.
  router.put(
    '/connectors/:name/inbound-secret',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      const { secret } = parseInput(InboundSecretSchema, req.body);
      const hash = createHash('sha256').update(secret).digest('hex');
      if (!(await setConnectorInboundSecret(db, name, hash)))
        throw HttpError.notFound(`No connector ${name}`);
      res.json({ data: { connector: name, inboundSecret: true } });
    }),
  );

  router.get(
    '/connectors/:name/inbound-secret',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      if (!(await getConnector(db, name))) throw HttpError.notFound(`No connector ${name}`);
      const inboundSecret = (await connectorInboundSecrets(db)).has(name);
      res.json({ data: { connector: name, inboundSecret } });
    }),
  );

  router.delete(
    '/connectors/:name/inbound-secret',
    requireScope('connectors'),
    asyncRoute(async (req, res) => {
      const name = connectorName(req);
      if (!(await setConnectorInboundSecret(db, name, null)))
        throw HttpError.notFound(`No connector ${name}`);
      res.json({ data: { connector: name, inboundSecret: false } });
    }),
  );

  return router;
}
