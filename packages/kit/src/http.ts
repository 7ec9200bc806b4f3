import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import { exactJsonParser } from './exact-json';
import { plainJsonBody } from './plain-json-body';
import { HttpError } from './http-error';
import type { Logger } from './logger';
import { createHttpMetrics } from './metrics';

export type ReadinessCheck = () => Promise<Record<string, boolean>> | Record<string, boolean>;

export interface HttpAppOptions {
  logger: Logger;
  registry: Registry;
  /** Each dependency's name and whether it answers; /readyz is 503 while one does not. */
  readiness: ReadinessCheck;
}

/**
 * An express app that measures its requests; the service mounts its routes, then calls finishApp,
 * which adds health, readiness and metrics after them (requests walk the routes in order, and the
 * service's own come by the thousand).
 */
export function createHttpApp({ registry }: Pick<HttpAppOptions, 'registry'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', false);
  const metrics = createHttpMetrics(registry);

  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route template, not the URL, keeps label cardinality bounded.
      const template = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof template === 'string' ? `${req.baseUrl}${template}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  });

  return app;
}

const JSON_TYPES = /^(application\/(json|[\w.+-]+\+json|x-www-form-urlencoded)|text\/plain)\b/i;

/**
 * Parses a JSON body. Deployed clients (curl -d, older SDKs) often post JSON with a form or text
 * content type, so those are read as JSON too; multipart and other types are a 415. With
 * exactNumbers, a number that a double would round is refused (see parseExactJson).
 */
export function jsonBody(
  limitBytes: number,
  options: { exactNumbers?: boolean } = {},
): RequestHandler[] {
  if (options.exactNumbers) return [jsonMediaGuard, ...exactJsonParser(limitBytes)];
  const parser = express.json({ limit: limitBytes, type: () => true, strict: false });
  return [jsonMediaGuard, plainJsonBody(limitBytes, parser)];
}

/** The content types jsonBody reads, for a route that reads its JSON body itself. */
export const jsonMediaGuard: RequestHandler = (req, _res, next) => {
  const type = req.headers['content-type'];
  if (type !== undefined && !JSON_TYPES.test(type)) {
    next(
      new HttpError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type ${type.split(';')[0]} is not supported; send application/json`,
      ),
    );
    return;
  }
  next();
};

/** Health, readiness and metrics, then 404 for unknown paths and the one error handler that turns every failure into the error body. */
export function finishApp(app: Express, { logger, registry, readiness }: HttpAppOptions): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    let checks: Record<string, boolean>;
    try {
      checks = await readiness();
    } catch (err) {
      logger.warn({ err }, 'readiness check failed');
      checks = { readiness: false };
    }
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', registry.contentType);
    res.end(await registry.metrics());
  });
  app.use((req, _res, next) => {
    next(new HttpError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  const handler: ErrorRequestHandler = (err, req, res, _next) => {
    const httpError = toHttpError(err);
    if (httpError.status >= 500)
      logger.error({ err, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(httpError.extra.headers ?? {}))
      res.setHeader(name, value);
    res.status(httpError.status).json(httpError.body());
  };
  app.use(handler);
}

/** Maps body-parser and unknown errors to our codes; never leaks a stack trace. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { type?: string; status?: number; expose?: boolean; message?: string };
  switch (e?.type) {
    case 'entity.too.large':
      return new HttpError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'entity.parse.failed':
      return new HttpError('INVALID_PARAMETER', 'Request body is not valid JSON', {
        field: 'body',
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Request body encoding is not supported');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new HttpError('INVALID_PARAMETER', 'Request body could not be read', {
        field: 'body',
      });
  }
  // The router could not percent-decode a path parameter (`%zz`, or bytes that are not UTF-8).
  if (err instanceof URIError)
    return new HttpError('INVALID_PARAMETER', 'The path is not validly percent-encoded', {
      field: 'path',
    });
  if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new HttpError('INVALID_PARAMETER', e.message ?? 'Bad request');
  }
  return new HttpError('INTERNAL_ERROR', 'Internal error');
}

/** Starts listening and resolves once the port is bound. */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.keepAliveTimeout = 65_000;
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** Stops accepting connections and waits for open requests (idle keep-alive sockets are closed). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** An async route handler whose rejection goes to the error middleware. */
export const asyncRoute =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).catch(next);
  };
