import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';
import { CONSOLE_PATH } from '@smsgw/contracts';

/** The page's placeholder for its style nonce (apps/console/index.html). */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * The console's Content-Security-Policy: scripts and styles from the gateway only, no inline
 * script at all, and inline styles only with this answer's nonce (Mantine's own <style> elements);
 * no framing, no other origin to talk to.
 */
export function consolePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function hardened(res: Response, nonce: string): void {
  res.set({
    'Content-Security-Policy': consolePolicy(nonce),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
}

/**
 * Serves the built console (apps/console, `dir` its dist) at /console/: its assets, whose names
 * carry their content's hash, cached for good; any other path under /console/ but the sessions'
 * API answers the page, so that a link into the console opens it (docs/console.md).
 */
export function createConsoleRoutes(dir: string): Router {
  const page = readFileSync(join(dir, 'index.html'), 'utf8');
  if (!page.includes(NONCE_PLACEHOLDER))
    throw new Error(`${dir}/index.html has no ${NONCE_PLACEHOLDER}: not the console's build`);
  const router = Router();
  // Express matches /console/ here too (its routing is not strict): only the bare path moves.
  router.get('/console', (req, res, next) => {
    if (req.path === '/console') res.redirect(301, CONSOLE_PATH);
    else next();
  });
  router.use(
    `${CONSOLE_PATH}assets`,
    express.static(join(dir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: false,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  router.get(/^\/console\/(?!v1\/).*/, (_req, res) => {
    const nonce = randomBytes(16).toString('base64');
    hardened(res, nonce);
    res
      .set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .send(page.replace(NONCE_PLACEHOLDER, nonce));
  });
  return router;
}
