import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import {
  ClientIdSchema,
  SetPasswordSchema,
  UsernameSchema,
  type AccountView,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput } from '@smsgw/kit';
import type { AccountAnnouncer } from './account-announcer';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';
import type { AccountStore } from './account-store';
import type { PasswordHasher } from './password-hasher';

export interface AccountControlDeps {
  store: AccountStore;
  hasher: PasswordHasher;
  announcer: AccountAnnouncer;
  audit: AdminAudit;
}

function found(account: AccountView | undefined, username: string): AccountView {
  if (!account) throw HttpError.notFound(`No account ${username}`);
  return account;
}

/**
 * Disable and enable an account, set its password, rotate an application's secret. Each change is
 * stored first and then announced, so no process can cache the old state after hearing of it.
 */
export function addAccountControlRoutes(admin: Router, deps: AccountControlDeps): void {
  const { store, hasher, announcer, audit } = deps;

  for (const [path, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    admin.post(
      `/accounts/:username/${path}`,
      requireScope('accounts:write'),
      asyncRoute(async (req, res) => {
        const username = parseInput(UsernameSchema, req.params['username']);
        const account = found(
          await store.setDisabled(username, disabled, audit.hook(req, res)),
          username,
        );
        await announcer.announce(account.id, disabled ? 'disabled' : 'enabled');
        res.json(account);
      }),
    );
  }

  admin.post(
    '/accounts/:username/password',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const { password } = parseInput(SetPasswordSchema, req.body ?? {});
      const account = found(
        await store.setPassword(username, await hasher.hash(password), audit.hook(req, res)),
        username,
      );
      await announcer.announce(account.id, 'password');
      res.json(account);
    }),
  );

  admin.post(
    '/accounts/:username/applications/:clientId/secret',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const username = parseInput(UsernameSchema, req.params['username']);
      const clientId = parseInput(ClientIdSchema, req.params['clientId']);
      const account = found(await store.getAccount(username), username);
      const clientSecret = randomBytes(32).toString('base64url');
      const rotated = await store.rotateSecret(
        account.id,
        clientId,
        await hasher.hash(clientSecret),
        audit.hook(req, res),
      );
      if (!rotated) throw HttpError.notFound(`No application ${clientId} for ${username}`);
      await announcer.announce(account.id, 'secret', clientId);
      res
        .set('Cache-Control', 'no-store')
        .json({ client_id: rotated.client_id, client_secret: clientSecret, name: rotated.name });
    }),
  );
}
