import type { RequestHandler, Router } from 'express';
import type { HotRoute } from './hot-route';
import { HttpError } from './http-error';

/**
 * What a process answers while it waits for its dependencies: health (200, so an orchestrator
 * keeps it alive), readiness (503 until it runs) and metrics.
 */
export const SERVED_WHILE_WAITING: ReadonlySet<string> = new Set([
  '/healthz',
  '/readyz',
  '/metrics',
]);

/**
 * The HTTP server listens before the service is built, so that a process waiting for Postgres or
 * RabbitMQ is seen alive and unready; the service's routes take over when open() gives them.
 */
export class StartupGate {
  private routes: Router | undefined;
  private hot: HotRoute | undefined;
  private opened = false;

  constructor(private readonly service: string) {}

  /** Before the service's routes: a 503 naming the wait until they are there. */
  readonly middleware: RequestHandler = (req, res, next) => {
    if (this.routes) {
      this.routes(req, res, next);
      return;
    }
    if (this.opened || SERVED_WHILE_WAITING.has(req.path)) {
      next();
      return;
    }
    next(
      new HttpError(
        'SERVICE_UNAVAILABLE',
        `${this.service} is starting: it waits for its dependencies (see /readyz)`,
      ),
    );
  };

  /** Offered each request before express; takes none until the service gave a hot route. */
  readonly hotRoute: HotRoute = (req, res) => (this.hot ? this.hot(req, res) : false);

  open(routes: Router | undefined, hot: HotRoute | undefined): void {
    this.routes = routes;
    this.hot = hot;
    this.opened = true;
  }
}
