import express, { Router, type Request } from 'express';
import {
  AccountPricingInputSchema,
  CreatePriceListSchema,
  CustomerGroupInputSchema,
  PriceExportQuerySchema,
  PriceVersionQuerySchema,
  PricingNameSchema,
  UsernameSchema,
  formatDecimal,
  type AccountPricingView,
  type CustomerGroupView,
  type PriceListList,
  type PriceListView,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import {
  createPriceList,
  deleteCustomerGroup,
  deleteFutureVersion,
  findAccountByUsername,
  findCustomerGroup,
  findPriceList,
  insertPriceListVersion,
  listCustomerGroups,
  listPriceLists,
  notePricingChange,
  priceListRows,
  priceListVersions,
  putCustomerGroup,
  setAccountPricing,
  type CustomerGroupRow,
  type PriceListRow,
} from '@smsgw/store';
import { stringify } from 'csv-stringify/sync';
import type { AdminAudit } from './admin-audit';
import { adminActor } from './admin-auth';
import { requireScope } from './admin-scopes';
import { parsePriceCsv } from './price-csv';

/** How far in the past effective_from may be: a clock a little behind the gateway's is taken. */
const BACKDATE_SLACK_MS = 60_000;

/** A price list file's size at most: 500,000 rows of a prefix, a price and a short description. */
const MAX_CSV_BYTES = 32 * 1024 * 1024;

const groupView = (g: CustomerGroupRow): CustomerGroupView => ({
  name: g.name,
  price_list: g.price_list,
  accounts: g.accounts,
  throughput: g.throughput,
  senders: g.sender_policy === null ? null : { policy: g.sender_policy, senders: g.senders },
  created_at: g.created_at.toISOString(),
  updated_at: g.updated_at.toISOString(),
});

/** Finding a list by the name in the path, and showing it with its versions. */
function priceListLookups(db: Db) {
  const nameOf = (req: Request) => parseInput(PricingNameSchema, req.params['name']);
  const listOf = async (name: string): Promise<PriceListRow> => {
    const list = await findPriceList(db, name);
    if (!list) throw HttpError.notFound(`No price list ${name}`);
    return list;
  };
  const listView = async (list: PriceListRow): Promise<PriceListView> => {
    const now = Date.now();
    const versions = await priceListVersions(db, list.id);
    // The newest start that has come is in effect; later ones are to come, earlier ones past.
    const current = versions.find((v) => v.effective_from.getTime() <= now);
    return {
      name: list.name,
      currency: list.currency,
      created_at: list.created_at.toISOString(),
      versions: versions.map((v) => ({
        id: v.id,
        effective_from: v.effective_from.toISOString(),
        rows: v.row_count,
        created_by: v.created_by,
        created_at: v.created_at.toISOString(),
        status: v.effective_from.getTime() > now ? 'future' : v === current ? 'current' : 'past',
      })),
    };
  };

  return { nameOf, listOf, listView };
}

/**
 * POST /admin/v1/price-lists/{name}/versions, mounted before the admin API's JSON body parser:
 * its body is the CSV file.
 */
export function createPriceImportRoute(db: Db, audit: AdminAudit): Router {
  const router = Router();
  const { nameOf, listOf, listView } = priceListLookups(db);
  // The whole file is checked before anything is written; then the version is written in one
  // transaction, so no message is ever priced by half a list.
  router.post(
    '/price-lists/:name/versions',
    requireScope('credit'),
    express.text({ type: ['text/csv', 'text/plain'], limit: MAX_CSV_BYTES }),
    asyncRoute(async (req, res) => {
      const list = await listOf(nameOf(req));
      const { effective_from } = parseInput(PriceVersionQuerySchema, req.query);
      if (typeof req.body !== 'string')
        throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Send the price list as text/csv');
      const parsed = parsePriceCsv(req.body, list.currency);
      if ('problems' in parsed)
        throw new HttpError(
          'INVALID_PARAMETER',
          `The price list has ${parsed.problems.length}${parsed.problems.length === 100 ? ' or more' : ''} bad rows; nothing was stored`,
          {
            errors: parsed.problems.map((p) => ({
              index: p.line,
              field: 'csv',
              message: `line ${p.line}: ${p.message}`,
            })),
          },
        );
      const effectiveFrom = effective_from === undefined ? new Date() : new Date(effective_from);
      // Messages already accepted kept their prices: a version cannot claim the time before it.
      if (effectiveFrom.getTime() < Date.now() - BACKDATE_SLACK_MS)
        throw HttpError.invalid(
          'effective_from',
          'a version takes effect now or later, not before',
        );
      const version = await db.transaction(async (tx) => {
        const made = await insertPriceListVersion(tx, {
          listId: list.id,
          effectiveFrom,
          createdBy: adminActor(res).name,
          rows: parsed.rows,
        });
        if (!made)
          throw new HttpError(
            'CONFLICT',
            `${list.name} has a version from ${effectiveFrom.toISOString()}`,
          );
        await audit.hook(req, res, 201, {
          version: made.id,
          rows: made.row_count,
          effective_from: effectiveFrom.toISOString(),
        })(tx);
        return made;
      });
      res.status(201).json({
        data: (await listView(list)).versions.find((v) => v.id === version.id),
      });
    }),
  );

  return router;
}

/**
 * Under the admin router: price lists and their versions (CSV in and out), customer groups and
 * an account's group and own list (docs/billing.md). Reading needs accounts:read; every change,
 * as it changes what accounts pay, needs credit.
 */
export function createBillingRoutes(db: Db, audit: AdminAudit): Router {
  const router = Router();
  const { nameOf, listOf, listView } = priceListLookups(db);

  router.get(
    '/price-lists',
    requireScope('accounts:read'),
    asyncRoute(async (_req, res) => {
      const lists = await listPriceLists(db);
      const body: PriceListList = { data: await Promise.all(lists.map(listView)) };
      res.json(body);
    }),
  );

  router.post(
    '/price-lists',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const input = parseInput(CreatePriceListSchema, req.body);
      const made = await createPriceList(db, input.name, input.currency);
      if (!made) throw new HttpError('CONFLICT', `A price list named ${input.name} exists`);
      res.status(201).json({ data: await listView(made) });
    }),
  );

  router.get(
    '/price-lists/:name',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      res.json({ data: await listView(await listOf(nameOf(req))) });
    }),
  );

  router.delete(
    '/price-lists/:name/versions/:id',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const list = await listOf(nameOf(req));
      const id = parseInput(PriceExportQuerySchema.shape.version, req.params['id']);
      if (id === undefined || !(await db.transaction((tx) => deleteFutureVersion(tx, list.id, id))))
        throw HttpError.notFound(`${list.name} has no version ${id ?? ''} still to come`);
      res.status(204).end();
    }),
  );

  router.get(
    '/price-lists/:name/csv',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const list = await listOf(nameOf(req));
      const { version } = parseInput(PriceExportQuerySchema, req.query);
      const view = await listView(list);
      const chosen = view.versions.find((v) =>
        version === undefined ? v.status === 'current' : v.id === version,
      );
      if (!chosen)
        throw HttpError.notFound(
          version === undefined
            ? `${list.name} has no version in effect`
            : `${list.name} has no version ${version}`,
        );
      const rows = await priceListRows(db, chosen.id);
      const csv = stringify(
        rows.map((r) => [r.prefix, r.price, list.currency, r.description ?? '']),
        { header: true, columns: ['prefix', 'price', 'currency', 'description'] },
      );
      res
        .set('Content-Type', 'text/csv; charset=utf-8')
        .set('Content-Disposition', `attachment; filename="${list.name}-${chosen.id}.csv"`)
        .send(csv);
    }),
  );

  router.get(
    '/groups',
    requireScope('accounts:read'),
    asyncRoute(async (_req, res) => {
      res.json({ data: (await listCustomerGroups(db)).map(groupView) });
    }),
  );

  router.get(
    '/groups/:name',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const name = nameOf(req);
      const group = await findCustomerGroup(db, name);
      if (!group) throw HttpError.notFound(`No group ${name}`);
      res.json({ data: groupView(group) });
    }),
  );

  router.put(
    '/groups/:name',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const name = nameOf(req);
      const input = parseInput(CustomerGroupInputSchema, req.body ?? {});
      const list = input.price_list === null ? null : await findPriceList(db, input.price_list);
      if (list === undefined)
        throw HttpError.invalid('price_list', `no price list ${input.price_list}`);
      await db.transaction(async (tx) => {
        await putCustomerGroup(tx, name, list?.id ?? null, {
          throughput: input.throughput,
          senders: input.senders && {
            policy: input.senders.policy,
            patterns: [...new Set(input.senders.senders)],
          },
        });
        await audit.hook(req, res)(tx);
      });
      res.json({ data: groupView((await findCustomerGroup(db, name))!) });
    }),
  );

  router.delete(
    '/groups/:name',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const name = nameOf(req);
      const group = await findCustomerGroup(db, name);
      if (!group) throw HttpError.notFound(`No group ${name}`);
      if (group.accounts > 0)
        throw new HttpError('CONFLICT', `${group.accounts} accounts belong to group ${name}`);
      if (!(await db.transaction((tx) => deleteCustomerGroup(tx, name))))
        throw new HttpError('CONFLICT', `Accounts belong to group ${name}`);
      res.status(204).end();
    }),
  );

  const pricingOf = async (username: string): Promise<AccountPricingView> => {
    const account = await findAccountByUsername(db, username);
    if (!account) throw HttpError.notFound(`No account ${username}`);
    const groups = await listCustomerGroups(db);
    const group = groups.find((g) => g.id === account.group_id);
    const lists = await listPriceLists(db);
    const own = lists.find((l) => l.id === account.price_list_id);
    return {
      data: {
        username,
        group: group?.name ?? null,
        price_list: own?.name ?? null,
        priced_by: own?.name ?? group?.price_list ?? null,
        credit_limit: formatDecimal(account.credit_limit),
      },
    };
  };

  router.get(
    '/accounts/:username/pricing',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      res.json(await pricingOf(parseInput(UsernameSchema, req.params['username'])));
    }),
  );

  router.put(
    '/accounts/:username/pricing',
    requireScope('credit'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const input = parseInput(AccountPricingInputSchema, req.body ?? {});
      const group =
        input.group === undefined || input.group === null
          ? input.group
          : await findCustomerGroup(db, input.group);
      if (group === undefined && input.group !== undefined)
        throw HttpError.invalid('group', `no group ${input.group}`);
      const list =
        input.price_list === undefined || input.price_list === null
          ? input.price_list
          : await findPriceList(db, input.price_list);
      if (list === undefined && input.price_list !== undefined)
        throw HttpError.invalid('price_list', `no price list ${input.price_list}`);
      const changed = await db.transaction(async (tx) => {
        const row = await setAccountPricing(tx, username, {
          ...(group !== undefined && { groupId: group?.id ?? null }),
          ...(list !== undefined && { priceListId: list?.id ?? null }),
          ...(input.credit_limit !== undefined && { creditLimit: input.credit_limit }),
        });
        if (!row) {
          if (input.credit_limit !== undefined && (await findAccountByUsername(tx, username)))
            throw HttpError.invalid(
              'credit_limit',
              'the balance is already below minus this limit: credit the account first',
            );
          return false;
        }
        // A credit limit prices nothing: the price books reload for a group or a list only.
        if (group !== undefined || list !== undefined) await notePricingChange(tx);
        await audit.hook(req, res)(tx);
        return true;
      });
      if (!changed) throw HttpError.notFound(`No account ${username}`);
      res.json(await pricingOf(username));
    }),
  );
  return router;
}
