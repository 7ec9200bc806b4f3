/**
 * Every admin route declares the scope a token needs for it: the admin router is walked as
 * express holds it, so a route added without requireScope fails here instead of being open to
 * every admin token.
 */
import type { Router } from 'express';
import { ADMIN_SCOPES } from '@smsgw/contracts';
import { compileProxyTrust } from '@smsgw/kit';
import { createAuthRoutes, type AuthRoutesDeps } from '../../services/auth/src/routes';
import { declaredScope } from '../../services/auth/src/admin-scopes';

interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> };
  handle?: { stack?: Layer[] };
  match(path: string): boolean;
}

interface FoundRoute {
  route: string;
  admin: boolean;
  scope: string | undefined;
}

function walk(stack: Layer[], admin: boolean, found: FoundRoute[]): FoundRoute[] {
  for (const layer of stack) {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).map((m) => m.toUpperCase());
      const scopes = layer.route.stack.map((l) => declaredScope(l.handle)).filter(Boolean);
      found.push({ route: `${methods.join(',')} ${layer.route.path}`, admin, scope: scopes[0] });
    } else if (layer.handle?.stack) {
      // A router mounted at /admin/v1 matches admin paths and nothing else.
      const mountedAtAdmin = layer.match('/admin/v1/accounts') && !layer.match('/not-admin');
      walk(layer.handle.stack, admin || mountedAtAdmin, found);
    }
  }
  return found;
}

/** The routes as auth builds them; no dependency is called while routes are declared. */
function authRoutes(): Router {
  const given: Partial<AuthRoutesDeps> = {
    adminToken: 'scope-walk-admin-token-0123456789',
    maxBodyBytes: 1024,
    trustedProxies: compileProxyTrust([]),
    // Read while the connector routes are declared (their URL guard); the key is not used here.
    connectors: { allowedHosts: [] } as unknown as AuthRoutesDeps['connectors'],
  };
  const deps = new Proxy(given, {
    get: (target, key) => (key in target ? target[key as keyof typeof target] : {}),
  }) as AuthRoutesDeps;
  return createAuthRoutes(deps);
}

describe('admin route scopes', () => {
  const routes = walk((authRoutes() as unknown as { stack: Layer[] }).stack, false, []);
  const admin = routes.filter((r) => r.admin);

  it('finds the admin routes (the walk sees what express serves)', () => {
    expect(admin.length).toBeGreaterThan(30);
    expect(admin.map((r) => r.route)).toEqual(
      expect.arrayContaining([
        'POST /accounts',
        'POST /accounts/:username/credit',
        'GET /connectors',
        'PUT /routes/:name',
        'PUT /mo-routes/:name',
        'GET /audit',
        'POST /tokens',
      ]),
    );
    // The customer-facing login is not an admin route.
    expect(routes.find((r) => r.route === 'POST /auth/v1/login/application')?.admin).toBe(false);
  });

  it('every admin route declares a known scope', () => {
    expect(admin.filter((r) => r.scope === undefined).map((r) => r.route)).toEqual([]);
    for (const r of admin) expect(ADMIN_SCOPES).toContain(r.scope);
  });

  it('the scopes of money and of the trail are where they belong', () => {
    const scopeOf = (route: string) => admin.find((r) => r.route === route)?.scope;
    expect(scopeOf('POST /accounts/:username/credit')).toBe('credit');
    expect(scopeOf('GET /audit')).toBe('audit:read');
    expect(scopeOf('POST /tokens')).toBe('tokens');
    expect(scopeOf('GET /accounts/:username/callback-secret')).toBe('accounts:write');
  });
});
