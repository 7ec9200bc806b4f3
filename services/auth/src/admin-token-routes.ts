import { Router } from 'express';
import {
  ADMIN_SCOPES,
  AdminTokenNameSchema,
  AuditQuerySchema,
  CreateAdminTokenSchema,
  type AdminScope,
  type AdminTokenCreated,
  type AdminTokenList,
  type AdminTokenView,
  type AuditEntryView,
  type AuditPage,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import {
  auditPage,
  insertAdminToken,
  listAdminTokens,
  lockLiveAdminToken,
  revokeAdminTokenAndMade,
  type AdminTokenRow,
  type AuditEntryRow,
} from '@smsgw/store';
import type { AdminAudit } from './admin-audit';
import { adminActor, adminTokenHash, BOOTSTRAP_ACTOR, newAdminToken } from './admin-auth';
import { missingScope, requireScope } from './admin-scopes';

function tokenView(row: AdminTokenRow): AdminTokenView {
  return {
    name: row.name,
    scopes: row.scopes,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

function entryView(row: AuditEntryRow): AuditEntryView {
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

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ADMIN_SCOPES);

/** The maker of a token was revoked while it was being made. */
function revokedMeanwhile(): HttpError {
  return new HttpError('UNAUTHORIZED', 'This admin token was revoked');
}

/**
 * Under the admin router: named admin tokens with scopes (made, listed, revoked) and the audit
 * trail. A token can only give or take away scopes it holds, so `tokens` alone cannot widen
 * itself nor disarm a wider token; revoking a token revokes the tokens it made.
 */
export function createAdminTokenRoutes(db: Db, audit: AdminAudit): Router {
  const router = Router();

  router.get(
    '/tokens',
    requireScope('tokens'),
    asyncRoute(async (_req, res) => {
      const body: AdminTokenList = { data: (await listAdminTokens(db)).map(tokenView) };
      res.json(body);
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
        // The maker stays live until its token is stored, so a revocation meanwhile takes it too.
        if (actor.name !== BOOTSTRAP_ACTOR && !(await lockLiveAdminToken(tx, actor.name, 'share')))
          throw revokedMeanwhile();
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
        .json({ data: { ...tokenView(row), token } } satisfies AdminTokenCreated);
    }),
  );

  router.delete(
    '/tokens/:name',
    requireScope('tokens'),
    asyncRoute(async (req, res) => {
      const name = parseInput(AdminTokenNameSchema, req.params['name']);
      const actor = adminActor(res);
      const revoked = await db.transaction(async (tx) => {
        const target = await lockLiveAdminToken(tx, name, 'update');
        if (!target) return undefined;
        // As when making one: `tokens` alone cannot take away a token that can do more.
        const beyond = target.scopes.find(
          (scope): scope is AdminScope =>
            KNOWN_SCOPES.has(scope) && !actor.scopes.has(scope as AdminScope),
        );
        if (beyond !== undefined) throw missingScope(beyond);
        const rows = await revokeAdminTokenAndMade(tx, name);
        const revokedWith = rows.filter((r) => r.name !== name).map((r) => r.name);
        await audit.hook(req, res, 200, { revoked_with: revokedWith })(tx);
        return { row: rows.find((r) => r.name === name)!, revokedWith };
      });
      if (!revoked) throw HttpError.notFound(`No live admin token ${name}`);
      res.json({ data: { ...tokenView(revoked.row), revoked_with: revoked.revokedWith } });
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
      const body: AuditPage = {
        data: rows.map(entryView),
        next: rows.length === q.limit && last ? last.id : null,
      };
      res.json(body);
    }),
  );

  return router;
}
