import { Router } from 'express';
import { SmppAccessSchema, UsernameSchema, type SmppAccessView } from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { deleteSmppAccess, findSmppAccess, upsertSmppAccess } from '@smsgw/store';
import type { AccountAnnouncer } from './account-announcer';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';
import type { AccountStore } from './account-store';
import type { PasswordHasher } from './password-hasher';

export interface SmppAccessDeps {
  db: Db;
  store: AccountStore;
  hasher: PasswordHasher;
  announcer: AccountAnnouncer;
  audit: AdminAudit;
}

/**
 * An account's SMPP access: its password (SMPP's own, at most 8 characters) and its limits. Each
 * change is stored, then announced, so the smpp-server replicas close the sessions it no longer
 * allows.
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

  return router;
}
