import {
  ConnectorCostInputSchema,
  ConnectorCostParamsSchema,
  type ConnectorCostList,
} from '@smsgw/contracts';
import { HttpError, asyncRoute, parseInput, type Db } from '@smsgw/kit';
import { findPriceList, listConnectorCosts, putConnectorCost } from '@smsgw/store';
import { Router } from 'express';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';

async function costLists(db: Db): Promise<ConnectorCostList> {
  return {
    data: (await listConnectorCosts(db)).map((c) => ({
      connector: c.connector,
      price_list: c.price_list,
      currency: c.currency,
      updated_at: c.updated_at.toISOString(),
    })),
  };
}

/**
 * Under the admin router: which price list gives each connector's supplier prices, so every
 * message the connector's SMSC accepts records what it cost us (docs/billing.md § Costs and
 * margins). By name, so a connector of SMSC_URL or one not made yet can have its list.
 */
export function createConnectorCostRoutes(db: Db, audit: AdminAudit): Router {
  const router = Router();

  router.get(
    '/connector-costs',
    requireScope('accounts:read'),
    asyncRoute(async (_req, res) => {
      res.json(await costLists(db));
    }),
  );

  router.put(
    '/connector-costs/:connector',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const { connector } = parseInput(ConnectorCostParamsSchema, {
        connector: req.params['connector'],
      });
      const input = parseInput(ConnectorCostInputSchema, req.body ?? {});
      const list = input.price_list === null ? null : await findPriceList(db, input.price_list);
      if (list === undefined)
        throw HttpError.invalid('price_list', `no price list ${input.price_list}`);
      await db.transaction(async (tx) => {
        await putConnectorCost(tx, connector, list?.id ?? null);
        await audit.hook(req, res)(tx);
      });
      res.json(await costLists(db));
    }),
  );

  return router;
}
