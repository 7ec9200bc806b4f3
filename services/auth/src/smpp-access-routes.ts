import { Router } from 'express';
import {
  SmppAccessSchema,
  SmppSessionIdSchema,
  UsernameSchema,
  type SmppAccessView,
  type SmppSessionView,
  type SmppWaitingList,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import {
  deleteSmppAccess,
  findSmppAccess,
  listSmppSessions,
  requestSmppSessionClose,
  smppWaitingByAccount,
  upsertSmppAccess,
} from '@smsgw/store';
import type { AccountAnnouncer } from './account-announcer';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';
import type { AccountStore } from './account-store';
import type { PasswordHasher } from './password-hasher';

/** The accounts /smpp/waiting lists at most, those waiting longest first. */
const WAITING_ACCOUNTS_LISTED = 100;

export interface SmppAccessDeps {
  db: Db;
  store: AccountStore;
  hasher: PasswordHasher;
  announcer: AccountAnnouncer;
  audit: AdminAudit;
}

/**
 * An account's SMPP access: its password (SMPP's own, 8 characters) and its limits. Each
 * change is stored, then announced, so the smpp-server replicas close the sessions it no longer
 * allows. And the sessions bound to every replica, listed and closed one by one.
 */
export function createSmppAccessRoutes(deps: SmppAccessDeps): Router {
  const { db, store, hasher, announcer, audit } = deps;
  const router = Router();

  async function accountId(username: string): Promise<string> {
    const account = await store.getAccount(username);
    if (!account) throw HttpError.notFound(`No account ${username}`);
    return account.id;
  }

  async function view(id: string): Promise<SmppAccessView | undefined> {
    const row = await findSmppAccess(db, id);
    return row
      ? {
          system_id: row.username,
          max_sessions: row.max_sessions,
          throughput: row.throughput,
          allowed_addresses: row.allowed_addresses,
        }
      : undefined;
  }

  router.get(
    '/accounts/:username/smpp',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const access = await view(await accountId(username));
      if (!access) throw HttpError.notFound(`${username} has no SMPP access`);
      res.json(access);
    }),
  );

  router.put(
    '/accounts/:username/smpp',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const input = parseInput(SmppAccessSchema, req.body ?? {});
      const id = await accountId(username);
      const passwordHash =
        input.password === undefined ? undefined : await hasher.hash(input.password);
      const hook = audit.hook(req, res);
      const changed = await db.transaction(async (tx) => {
        const done = await upsertSmppAccess(tx, id, {
          passwordHash,
          maxSessions: input.max_sessions,
          throughput: input.throughput,
          allowedAddresses: input.allowed_addresses,
        });
        if (done) await hook(tx);
        return done;
      });
      if (!changed)
        throw HttpError.invalid('password', 'a password is needed to give an account SMPP access');
      await announcer.announce(id, 'smpp');
      res.json(await view(id));
    }),
  );

  router.delete(
    '/accounts/:username/smpp',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const id = await accountId(username);
      const hook = audit.hook(req, res, 204);
      const removed = await db.transaction(async (tx) => {
        const done = await deleteSmppAccess(tx, id);
        if (done) await hook(tx);
        return done;
      });
      if (!removed) throw HttpError.notFound(`${username} has no SMPP access`);
      await announcer.announce(id, 'smpp');
      res.status(204).end();
    }),
  );

  router.get(
    '/smpp/sessions',
    requireScope('accounts:read'),
    asyncRoute(async (_req, res) => {
      const rows = await listSmppSessions(db, SESSION_FRESH_SECONDS);
      const data: SmppSessionView[] = rows.map((r) => ({
        id: r.id,
        system_id: r.system_id,
        bind_type: r.bind_type,
        address: r.address,
        since: r.since.toISOString(),
        window_in_use: r.window_in_use,
        submits_per_second: r.submits_per_second,
        replica: r.replica,
      }));
      res.json({ data });
    }),
  );

  // Receipts and inbound messages that wait for a customer's receiver session to take them.
  router.get(
    '/smpp/waiting',
    requireScope('accounts:read'),
    asyncRoute(async (_req, res) => {
      const rows = await smppWaitingByAccount(db, WAITING_ACCOUNTS_LISTED);
      const body: SmppWaitingList = {
        data: {
          accounts: rows.map((r) => ({
            account: r.username,
            receipts: r.receipts,
            inbound: r.inbound,
            oldest_at: r.oldest_at.toISOString(),
            max_attempts: r.max_attempts,
          })),
          receipts: rows[0]?.all_receipts ?? 0,
          inbound: rows[0]?.all_inbound ?? 0,
        },
      };
      res.set('Cache-Control', 'no-store').json(body);
    }),
  );

  router.delete(
    '/smpp/sessions/:id',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const id = parseInput(SmppSessionIdSchema, req.params['id']);
      const hook = audit.hook(req, res, 202);
      const asked = await db.transaction(async (tx) => {
        const done = await requestSmppSessionClose(tx, id);
        if (done) await hook(tx);
        return done;
      });
      if (!asked) throw HttpError.notFound(`No SMPP session ${id}`);
      // Its replica unbinds it at its next refresh of its sessions (within a few seconds).
      res.status(202).end();
    }),
  );

  return router;
}

/** Sessions whose replica refreshed them within this are listed (replicas refresh every 2 s). */
const SESSION_FRESH_SECONDS = 10;
