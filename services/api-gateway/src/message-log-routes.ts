import { Router, type Response } from 'express';
import {
  BatchSearchQuerySchema,
  MessageSearchQuerySchema,
  type BatchSearchResult,
  type MessageSearchResult,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { MessageLog } from '@smsgw/message-log';

export interface MessageLogRoutesDeps {
  db: Db;
  /** The caller's account (after /secure's authentication). */
  accountId: (res: Response) => string;
  /** SHOW_ROUTES_TO_CUSTOMERS: without it, neither shown nor searchable. */
  showRoutes: boolean;
  searchMaxDays: number;
}

/** The customer's own messages and batches, newest first (docs/operators.md § Search). */
export function createMessageLogRoutes(deps: MessageLogRoutesDeps): Router {
  const router = Router();
  const log = new MessageLog(deps.db, deps.searchMaxDays);

  router.get(
    '/secure/messages',
    asyncRoute(async (req, res) => {
      const q = parseInput(MessageSearchQuerySchema, req.query);
      // Filtering by a name the customer is not shown would tell it the name.
      if (!deps.showRoutes && (q.connector !== undefined || q.route !== undefined))
        throw HttpError.invalid(
          q.connector !== undefined ? 'connector' : 'route',
          'routes and connectors are not shown to customers on this gateway',
        );
      const page = await log.searchMessages(q, {
        accountId: deps.accountId(res),
        see: { account: false, routes: deps.showRoutes, content: true },
      });
      const body: MessageSearchResult = { data: page };
      res.json(body);
    }),
  );

  router.get(
    '/secure/batches',
    asyncRoute(async (req, res) => {
      const q = parseInput(BatchSearchQuerySchema, req.query);
      const page = await log.searchBatches(q, { accountId: deps.accountId(res), account: false });
      const body: BatchSearchResult = { data: page };
      res.json(body);
    }),
  );
  return router;
}
