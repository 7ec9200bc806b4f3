import { Router } from 'express';
import {
  AdminTokenNameSchema,
  AuditQuerySchema,
  CreateAdminTokenSchema,
  type AdminScope,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import {
  auditPage,
  insertAdminToken,
  listAdminTokens,
  revokeAdminToken,
  type AdminTokenRow,
  type AuditEntryRow,
} from '@smsgw/store';
import type { AdminAudit } from './admin-audit';
import { adminActor, adminTokenHash, BOOTSTRAP_ACTOR, newAdminToken } from './admin-auth';
import { missingScope, requireScope } from './admin-scopes';

function tokenView(row: AdminTokenRow) {
  return {
    name: row.name,
    scopes: row.scopes,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

function entryView(row: AuditEntryRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    target: row.target,
    summary: row.summary,
    address: row.address,
    status: row.status,
    result: row.result,
  };
}

/**
 * Under the admin router: named admin tokens with scopes (made, listed, revoked) and the audit
 * trail. A token can only be given scopes its maker holds, so `tokens` alone cannot widen itself.
 */
export function createAdminTokenRoutes(db: Db, audit: AdminAudit): Router {
  const router = Router();

  router.get(
    '/tokens',
    requireScope('tokens'),
    asyncRoute(async (_req, res) => {
      res.json({ data: (await listAdminTokens(db)).map(tokenView) });
    }),
  );

  router.post(
    '/tokens',
    requireScope('tokens'),
    asyncRoute(async (req, res) => {
      const input = parseInput(CreateAdminTokenSchema, req.body);
      if (input.name === BOOTSTRAP_ACTOR)
        throw HttpError.invalid('name', `${BOOTSTRAP_ACTOR} names the bootstrap token`);
      const actor = adminActor(res);
      const beyond = input.scopes.find((scope: AdminScope) => !actor.scopes.has(scope));
      if (beyond !== undefined) throw missingScope(beyond);
      const token = newAdminToken();
      const row = await db.transaction(async (tx) => {
        const stored = await insertAdminToken(tx, {
          name: input.name,
          tokenHash: adminTokenHash(token),
          scopes: input.scopes,
          createdBy: actor.name,
        });
        if (stored) await audit.hook(req, res, 201)(tx);
        return stored;
      });
      if (!row) throw new HttpError('CONFLICT', `An admin token named ${input.name} exists`);
      // The token is shown here once: only its hash is kept.
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json({ data: { ...tokenView(row), token } });
    }),
  );

  router.delete(
    '/tokens/:name',
    requireScope('tokens'),
    asyncRoute(async (req, res) => {
      const name = parseInput(AdminTokenNameSchema, req.params['name']);
      const row = await db.transaction(async (tx) => {
        const revoked = await revokeAdminToken(tx, name);
        if (revoked) await audit.hook(req, res)(tx);
        return revoked;
      });
      if (!row) throw HttpError.notFound(`No live admin token ${name}`);
      res.json({ data: tokenView(row) });
    }),
  );

  router.get(
    '/audit',
    requireScope('audit:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AuditQuerySchema, req.query);
      const rows = await auditPage(db, {
        actor: q.actor,
        action: q.action,
        target: q.target,
        result: q.result,
        since: q.since !== undefined ? new Date(q.since) : undefined,
        until: q.until !== undefined ? new Date(q.until) : undefined,
        before: q.cursor,
        limit: q.limit,
      });
      const last = rows.at(-1);
      res.json({
        data: rows.map(entryView),
        next: rows.length === q.limit && last ? last.id : null,
      });
    }),
  );

  return router;
}
