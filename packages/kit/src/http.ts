import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { exactJsonParser } from './exact-json';
import { plainJsonBody } from './plain-json-body';
import { HttpError } from './http-error';
import type { Logger } from './logger';
import type { HotRoute } from './hot-route';
import { requestMeter } from './request-meter';

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
  const meter = requestMeter(registry);
  app.use((req, res, next) => {
    // The route template, not the URL, keeps label cardinality bounded.
    meter(req, res, () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      return typeof template === 'string' ? `${req.baseUrl}${template}` : 'unmatched';
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

/** Whether jsonBody reads a body of this content type (none given is JSON). */
export function isJsonMediaType(type: string | undefined): boolean {
  return type === undefined || JSON_TYPES.test(type);
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
    answerError(res, err, logger, req.method, req.path);
  };
  app.use(handler);
}

/** Writes a JSON answer whole, as res.json does (same type and length) without express. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

/** The one answer to every failure, express's or a hot route's: the error body, logged from 500. */
export function answerError(
  res: ServerResponse,
  err: unknown,
  logger: Logger,
  method: string | undefined,
  path: string,
): void {
  const httpError = toHttpError(err);
  if (httpError.status >= 500) logger.error({ err, method, path }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(httpError.extra.headers ?? {}))
    res.setHeader(name, value);
  writeJson(res, httpError.status, httpError.body());
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

/** Starts listening and resolves once the port is bound; `hot` is offered each request first. */
export function listen(app: Express, port: number, host: string, hot?: HotRoute): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(
      hot
        ? (req, res) => {
            if (!hot(req, res)) app(req, res);
          }
        : app,
    ).listen(port, host);
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
