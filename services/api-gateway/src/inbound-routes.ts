import { Router, type Response } from 'express';
import {
  InboundListQuerySchema,
  OptOutListQuerySchema,
  OptOutRequestSchema,
  type InboundMessageView,
  type InboundPage,
  type OptOutPage,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, jsonBody, parseInput, type Db } from '@smsgw/kit';
import {
  addOptOut,
  findInboundMessage,
  listInboundOfAccount,
  optOutPage,
  removeOptOut,
  type InboundMessageRow,
} from '@smsgw/store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function inboundView(m: InboundMessageRow): InboundMessageView {
  return {
    id: m.id,
    from: m.from_addr,
    to: m.to_addr,
    connector: m.connector,
    coding: m.coding,
    text: m.content,
    binary: m.hex_content,
    keyword: m.keyword,
    incomplete: m.incomplete,
    parts: { expected: m.parts_expected, received: m.parts_received },
    state: m.state,
    receivedAt: m.received_at.toISOString(),
  };
}

/** The page cursor: the last message's time and id, opaque to the client. */
const encodeCursor = (m: InboundMessageRow): string =>
  Buffer.from(`${m.received_at.toISOString()}|${m.id}`).toString('base64url');

function decodeCursor(cursor: string): { receivedAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const receivedAt = new Date(at ?? '');
  if (Number.isNaN(receivedAt.getTime()) || !UUID.test(id ?? ''))
    throw HttpError.invalid('cursor', 'not the `next` value of a previous page');
  return { receivedAt, id: id };
}

/**
 * The account's own inbound messages (pull, for applications without a webhook) and its opt-out
 * list. Mounted behind the /secure authentication.
 */
export function createInboundRoutes(
  db: Db,
  accountIdOf: (res: Response) => string,
  maxBodyBytes: number,
): Router {
  const router = Router();

  router.get(
    '/secure/inbound',
    asyncRoute(async (req, res) => {
      const q = parseInput(InboundListQuerySchema, req.query);
      const rows = await listInboundOfAccount(db, accountIdOf(res), {
        limit: q.limit + 1,
        ...(q.cursor !== undefined && { before: decodeCursor(q.cursor) }),
        ...(q.to !== undefined && { to: q.to }),
        ...(q.from !== undefined && { from: q.from }),
        ...(q.since !== undefined && { since: q.since }),
        ...(q.until !== undefined && { until: q.until }),
      });
      const page = rows.slice(0, q.limit);
      const body: InboundPage = {
        data: {
          messages: page.map(inboundView),
          next: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null,
        },
      };
      res.json(body);
    }),
  );

  router.get(
    '/secure/inbound/:id',
    asyncRoute(async (req, res) => {
      const id = String(req.params['id']);
      const message = UUID.test(id) ? await findInboundMessage(db, id.toLowerCase()) : undefined;
      if (!message || message.account_id !== accountIdOf(res))
        throw HttpError.notFound(`No inbound message ${id}`);
      res.json({ data: inboundView(message) });
    }),
  );

  router.get(
    '/secure/optouts',
    asyncRoute(async (req, res) => {
      const q = parseInput(OptOutListQuerySchema, req.query);
      const body: OptOutPage = { data: await optOutPage(db, accountIdOf(res), q.limit, q.cursor) };
      res.json(body);
    }),
  );

  router.post(
    '/secure/optouts',
    ...jsonBody(maxBodyBytes),
    asyncRoute(async (req, res) => {
      const { number } = parseInput(OptOutRequestSchema, req.body);
      const added = await addOptOut(db, accountIdOf(res), number, 'account');
      res.status(added ? 201 : 200).json({ data: { number, optedOut: true } });
    }),
  );

  router.delete(
    '/secure/optouts/:number',
    asyncRoute(async (req, res) => {
      const { number } = parseInput(OptOutRequestSchema, { number: req.params['number'] });
      if (!(await removeOptOut(db, accountIdOf(res), number)))
        throw HttpError.notFound(`${number} is not on the opt-out list`);
      res.json({ data: { number, optedOut: false } });
    }),
  );

  return router;
}
