import { Router, type Request } from 'express';
import { SenderRulesSchema, UsernameSchema } from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput } from '@smsgw/kit';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';
import type { SenderRulesStore } from './sender-rules-store';

/**
 * `/accounts/{username}/senders` under the admin router (which checked the admin token and read
 * the JSON body). A change reaches every gateway within its sender cache's lifetime.
 */
export function createSenderRoutes(senders: SenderRulesStore, audit: AdminAudit): Router {
  const router = Router();
  const username = (req: Request): string => parseInput(UsernameSchema, req.params['username']);
  const found = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw HttpError.notFound(`No account ${name}`);
    return value;
  };

  router.get(
    '/accounts/:username/senders',
    requireScope('accounts:read'),
    asyncRoute(async (req, res) => {
      const name = username(req);
      res.json(found(await senders.view(name), name));
    }),
  );

  router.put(
    '/accounts/:username/senders',
    requireScope('senders'),
    asyncRoute(async (req, res) => {
      const name = username(req);
      const rules = parseInput(SenderRulesSchema, req.body);
      res.json(found(await senders.replace(name, rules, audit.hook(req, res)), name));
    }),
  );

  router.delete(
    '/accounts/:username/senders',
    requireScope('senders'),
    asyncRoute(async (req, res) => {
      const name = username(req);
      res.json(found(await senders.remove(name, audit.hook(req, res)), name));
    }),
  );

  return router;
}
