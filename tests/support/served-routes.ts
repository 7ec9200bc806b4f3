/**
 * The routes the services serve, read from their express routers, so that a test that must cover
 * every route learns of a new one without being told.
 */
import type { Express, Router } from 'express';
import { createAuthRoutes } from '@smsgw/auth';
import { createGatewayRoutes, IdempotentRequests } from '@smsgw/api-gateway';
import { createHttpApp, createLogger, createRegistry, finishApp } from '@smsgw/kit';

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: unknown;
  rawPath?: string;
  slash?: boolean;
};

/** Routes a router serves, as "METHOD /path/{param}". */
export function routesOf(router: Router, prefix = ''): string[] {
  const out: string[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods))
        out.push(`${method.toUpperCase()} ${prefix}${layer.route.path.replace(/:(\w+)/g, '{$1}')}`);
    } else if ((layer.handle as { stack?: unknown } | undefined)?.stack) {
      // A mounted router: express 5 keeps its mount path as rawPath.
      const mount = layer.slash || !layer.rawPath ? '' : layer.rawPath;
      out.push(...routesOf(layer.handle as Router, `${prefix}${mount}`));
    }
  }
  return out;
}

/**
 * The routers are built only to be read: no handler runs. Their dependencies are a stand-in that
 * answers every property, call and iteration with itself (or nothing), so that a dependency added
 * to a service does not stop its routes from being read.
 */
function standIn(given: Record<string, unknown> = {}): never {
  const stub: object = new Proxy(function standIn() {}, {
    get: (_target, key) => {
      if (typeof key === 'string' && Object.hasOwn(given, key)) return given[key];
      if (key === Symbol.iterator) return function* () {};
      if (key === 'then' || typeof key === 'symbol') return undefined;
      return standIn();
    },
    apply: () => standIn(),
    construct: () => standIn(),
  });
  return stub as never;
}

const authRoutes = (internalToken: string | undefined): Router =>
  createAuthRoutes(
    standIn({ adminToken: 'x'.repeat(16), internalToken, maxBodyBytes: 1, corsAllowedOrigins: [] }),
  );

const gatewayRoutes = (): Router =>
  createGatewayRoutes(
    standIn({
      idempotency: new IdempotentRequests(standIn(), standIn(), {
        windowSeconds: 1,
        waitMs: 1,
        pollMs: 1,
      }),
      maxBodyBytes: 1,
      maxBatchBytes: 1,
      maxParts: 1,
      corsAllowedOrigins: [],
    }),
  );

/** An app as every service's process has it (serviceMain, embedded mode): its routes, then finishApp's. */
function appRoutes(routers: Router[]): string[] {
  const registry = createRegistry('routes');
  const app: Express = createHttpApp({ registry });
  for (const router of routers) app.use(router);
  finishApp(app, { logger: createLogger('routes', 'silent'), registry, readiness: () => ({}) });
  return [...new Set(routesOf((app as unknown as { router: Router }).router))].sort();
}

/** Embedded mode: auth's and the gateway's routes behind one port (apps/standalone). */
export const embeddedRoutes = (): string[] => appRoutes([authRoutes(undefined), gatewayRoutes()]);

/**
 * Each distributed service's routes. dispatcher, batch-scheduler and callback-notifier mount none
 * of their own (their main.ts gives serviceMain no routes): they serve health, readiness and metrics.
 */
export const distributedRoutes = (): Record<string, string[]> => ({
  auth: appRoutes([authRoutes('internal-token')]),
  'api-gateway': appRoutes([gatewayRoutes()]),
  dispatcher: appRoutes([]),
  'batch-scheduler': appRoutes([]),
  'callback-notifier': appRoutes([]),
});
