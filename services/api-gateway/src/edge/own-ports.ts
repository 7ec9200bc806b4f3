import type { Server } from 'node:http';
import { Router, type ErrorRequestHandler } from 'express';
import type { Registry } from 'prom-client';
import {
  answerError,
  closeServer,
  createHttpApp,
  envVars,
  HttpError,
  listen,
  type HotRoute,
  type Logger,
  type ShutdownStep,
} from '@smsgw/kit';

/**
 * Ports of their own for Jasmin's HTTP interface and Kannel's sendsms, off unless set: a client
 * configured with a host and port (Jasmin's 1401, Kannel's 13013) reaches the gateway unchanged.
 * Unset or empty, the interfaces are served on the gateway's port only. 0 takes a free port (tests).
 */
export const ownPortsEnv = {
  JASMIN_HTTP_PORT: envVars.PORT.optional(),
  KANNEL_SENDSMS_PORT: envVars.PORT.optional(),
};

export type OwnPortName = 'jasmin-http' | 'kannel-sendsms';

export interface OwnPort {
  name: OwnPortName;
  port: number;
  routes: Router;
  /** Offered each request before `routes`. */
  hot?: HotRoute | undefined;
}

export interface OwnPortsOptions {
  host: string;
  registry: Registry;
  logger: Logger;
}

export interface OpenOwnPorts {
  /** The port each interface listens on (the one asked for, or the one taken for 0). */
  ports: Partial<Record<OwnPortName, number>>;
  /** Readiness: each port still listening. */
  readiness(): Record<string, boolean>;
  /** First in shutdown, with the gateway's own port: they stop taking requests. */
  stopSteps: ShutdownStep[];
}

/** The ports asked for, with the routes each serves. */
export function ownPortsWanted(
  config: { JASMIN_HTTP_PORT?: number | undefined; KANNEL_SENDSMS_PORT?: number | undefined },
  routes: Record<OwnPortName, Router>,
  hot: Record<OwnPortName, HotRoute | undefined>,
): OwnPort[] {
  const wanted: OwnPort[] = [];
  for (const [name, port] of [
    ['jasmin-http', config.JASMIN_HTTP_PORT],
    ['kannel-sendsms', config.KANNEL_SENDSMS_PORT],
  ] as const)
    if (port !== undefined) wanted.push({ name, port, routes: routes[name], hot: hot[name] });
  return wanted;
}

/**
 * Listens on each port with its interface's routes only: no admin, REST, health or metrics routes
 * there, so exposing such a port exposes nothing else. Requests are measured as the main port's.
 */
export async function openOwnPorts(
  wanted: readonly OwnPort[],
  options: OwnPortsOptions,
): Promise<OpenOwnPorts> {
  const opened: { name: OwnPortName; server: Server }[] = [];
  try {
    for (const one of wanted) {
      const app = createHttpApp({ registry: options.registry });
      app.use(one.routes);
      app.use((req, _res, next) => {
        next(new HttpError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
      });
      const handler: ErrorRequestHandler = (err, req, res, _next) => {
        answerError(res, err, options.logger, req.method, req.path);
      };
      app.use(handler);
      opened.push({ name: one.name, server: await listen(app, one.port, options.host, one.hot) });
    }
  } catch (err) {
    await Promise.all(opened.map((o) => closeServer(o.server)));
    throw err;
  }
  const ports: Partial<Record<OwnPortName, number>> = {};
  for (const { name, server } of opened) {
    const address = server.address();
    if (typeof address === 'object' && address) ports[name] = address.port;
    options.logger.info({ port: ports[name] }, `${name} listening on a port of its own`);
  }
  return {
    ports,
    readiness: () =>
      Object.fromEntries(opened.map(({ name, server }) => [`${name} port`, server.listening])),
    stopSteps: opened.map(({ name, server }) => ({
      name: `${name} port`,
      run: () => closeServer(server),
    })),
  };
}

/** Jasmin's HTTP interface's ping (ping.py answers the text Jasmin/PONG), for its own port. */
export function jasminHttpPing(): Router {
  const router = Router();
  router.get('/ping', (_req, res) => {
    res.status(200).type('text/plain').send('Jasmin/PONG');
  });
  return router;
}
