import type { Request, RequestHandler, Response } from 'express';
import { clientAddress, type Logger, type ProxyTrust, type Queryable } from '@smsgw/kit';
import { insertAuditEntry, type AuditEntryInput } from '@smsgw/store';
import { adminActor } from './admin-auth';
import { auditTarget } from './admin-target';
import { maskConnectorUrl } from './connector-url-mask';

/** Written inside a change's transaction, so the change and its entry commit or fail together. */
export type AuditHook = (tx: Queryable) => Promise<void>;

/** Field names whose values are never written to the trail, whatever the route. */
const SECRET_FIELD =
  /pass(word|phrase)?|pwd|secret|token|credential|api_?key|authorization|private/i;
const MAX_STRING = 256;
const MAX_ITEMS = 50;
const MAX_DEPTH = 4;

/**
 * The request body as the trail keeps it: secret-named fields replaced, a URL's password and
 * secret-looking parameters masked, long strings and lists cut.
 */
export function redactForAudit(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const shown = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? maskConnectorUrl(value) : value;
    return shown.length > MAX_STRING ? `${shown.slice(0, MAX_STRING)}…` : shown;
  }
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => redactForAudit(v, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `… ${value.length - MAX_ITEMS} more`] : items;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value).slice(0, MAX_ITEMS))
      out[key] = SECRET_FIELD.test(key) ? '[redacted]' : redactForAudit(v, depth + 1);
    return out;
  }
  return typeof value === 'bigint' ? value.toString() : null;
}

function resultOf(status: number): string {
  if (status < 400) return 'ok';
  return status === 401 || status === 403 ? 'denied' : 'failed';
}

/** Reads are not changes; a refused one is still worth a line. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The admin audit trail. Routes that change the database write their entry in the same
 * transaction (hook); every other admin change, every failed change and every refused request is
 * written by the recorder once the answer is known.
 */
export class AdminAudit {
  constructor(
    private readonly trustedProxies: ProxyTrust,
    private readonly db: Queryable,
    private readonly logger?: Logger,
  ) {}

  private entry(
    req: Request,
    res: Response,
    status: number,
    outcome: Record<string, unknown> = {},
  ): AuditEntryInput {
    const body: unknown = req.body;
    // The route's path with its decoded parameters, not the path as spelled: express matches any
    // case and decodes escapes, and a search by target must find every spelling.
    const target = auditTarget(req, res);
    const summary = {
      ...(body !== undefined &&
        body !== null &&
        typeof body === 'object' &&
        Object.keys(body).length > 0 && { body: redactForAudit(body) }),
      ...outcome,
    };
    return {
      actor: adminActor(res).name,
      action: `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? target}`,
      target,
      summary,
      address: clientAddress(req, this.trustedProxies),
      status,
      result: resultOf(status),
    };
  }

  /**
   * The entry of a successful change, to be written in its transaction; `outcome` adds to the
   * summary what the change did beyond what was asked.
   */
  hook(req: Request, res: Response, status = 200, outcome?: Record<string, unknown>): AuditHook {
    return async (tx) => {
      await insertAuditEntry(tx, this.entry(req, res, status, outcome));
      res.locals['audited'] = true;
    };
  }

  /**
   * A read that discloses a secret, or copies out data in bulk, is recorded as a change is;
   * `outcome` adds to the summary what was read (a query has no body).
   */
  async recordRead(req: Request, res: Response, outcome?: Record<string, unknown>): Promise<void> {
    await insertAuditEntry(this.db, this.entry(req, res, 200, outcome));
    res.locals['audited'] = true;
  }

  /**
   * After the admin token is checked: records a change (or refusal) that its route did not record
   * itself, before the answer leaves, so an answered change is on the trail. A change that failed
   * rolled back its own entry, so the failure is recorded here.
   */
  recorder(): RequestHandler {
    return (req, res, next) => {
      res.locals['adminMount'] = req.baseUrl;
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        const status = res.statusCode;
        const skip =
          (res.locals['audited'] === true && status < 400) ||
          (READS.has(req.method) && status !== 403);
        if (skip) return end(...args);
        insertAuditEntry(this.db, this.entry(req, res, status))
          .catch((err: unknown) =>
            this.logger?.error({ err, path: req.path }, 'admin audit entry not written'),
          )
          .finally(() => end(...args));
        return res;
      }) as Response['end'];
      next();
    };
  }
}
