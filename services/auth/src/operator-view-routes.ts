import { Router, type Request, type Response } from 'express';
import {
  AccountListQuerySchema,
  AdminBatchSearchQuerySchema,
  AdminMessageSearchQuerySchema,
  UUID_PATTERN,
  type AccountList,
  type BatchSearchResult,
  type MessageSearchResult,
  type MessageTimeline,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { MessageLog, type MessageVisibility } from '@smsgw/message-log';
import { listAccounts } from '@smsgw/store';
import { accountIdByName } from './account-by-name';
import type { AdminAudit } from './admin-audit';
import { holdsScope, requireScope } from './admin-scopes';
import { accountView } from './account-store';

export interface OperatorViewDeps {
  db: Db;
  audit: AdminAudit;
  /** SEARCH_MAX_DAYS. */
  searchMaxDays: number;
}

/**
 * Under the admin router: the accounts, batches and messages of every account, and a message's
 * story (docs/operators.md). The text of a message is shown only to a token holding
 * messages:content, and each such read is written to the audit trail.
 */
export function createOperatorViewRoutes(deps: OperatorViewDeps): Router {
  const router = Router();
  const log = new MessageLog(deps.db, deps.searchMaxDays);

  const visibility = (res: Response): MessageVisibility => ({
    account: true,
    routes: true,
    content: holdsScope(res, 'messages:content'),
  });
  /** A read that showed message text: recorded, as a read of a secret is. */
  const recordContentRead = async (req: Request, res: Response, shown: number) => {
    if (shown > 0 && holdsScope(res, 'messages:content')) await deps.audit.recordRead(req, res);
  };

  router.get(
    '/accounts',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AccountListQuerySchema, req.query);
      const rows = await listAccounts(deps.db, {
        search: q.q,
        after: q.next,
        limit: q.limit + 1,
      });
      const page = rows.slice(0, q.limit);
      const body: AccountList = {
        data: {
          accounts: page.map(accountView),
          next: rows.length > q.limit ? page[page.length - 1].username : null,
        },
      };
      res.json(body);
    }),
  );

  router.get(
    '/messages',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AdminMessageSearchQuerySchema, req.query);
      const page = await log.searchMessages(q, {
        accountId: await accountIdByName(deps.db, q.account),
        see: visibility(res),
      });
      await recordContentRead(req, res, page.messages.length);
      const body: MessageSearchResult = { data: page };
      res.json(body);
    }),
  );

  router.get(
    '/messages/:id',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const id = String(req.params['id']);
      const story = UUID_PATTERN.test(id)
        ? await log.story(id.toLowerCase(), visibility(res))
        : undefined;
      if (!story) throw HttpError.notFound(`No message ${id}`);
      await recordContentRead(req, res, 1);
      const body: MessageTimeline = { data: story };
      res.json(body);
    }),
  );

  router.get(
    '/batches',
    requireScope('batches:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AdminBatchSearchQuerySchema, req.query);
      const page = await log.searchBatches(q, {
        accountId: await accountIdByName(deps.db, q.account),
        account: true,
      });
      const body: BatchSearchResult = { data: page };
      res.json(body);
    }),
  );
  return router;
}
