import type { Router } from 'express';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import type { Bus } from './bus/bus';
import { openBus } from './bus/open-bus';
import { loadConfig } from './config';
import type { Db } from './db/db';
import { migrate } from './db/migrate';
import { openDb } from './db/open-db';
import { closeServer, createHttpApp, finishApp, listen } from './http';
import type { HotRoute } from './hot-route';
import { createLogger, type Logger } from './logger';
import { createRegistry } from './metrics';
import { runMain } from './run-main';
import { warnAboutInsecureSecrets } from './secret-policy';
import { handleShutdown, type ShutdownStep } from './shutdown';

/** What every service's configuration has (kit envVars). */
interface BaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  SHUTDOWN_TIMEOUT_MS: number;
  AMQP_URL?: string | undefined;
  BUS_NAMESPACE?: string;
}

export interface ServiceContext<C> {
  config: C;
  logger: Logger;
  registry: Registry;
  db: Db;
  /** Opened when the service's configuration has BUS_NAMESPACE. */
  bus: Bus | undefined;
}

export interface ServiceDefinition {
  routes?: Router;
  /** Offered each request before `routes` (see HotRoute). */
  hotRoute?: HotRoute;
  /** Further dependencies for /readyz, beside the database and the bus. */
  readiness?: () => Record<string, boolean>;
  /** Runs once the HTTP port listens (consumers, sessions). */
  start?: () => Promise<void>;
  /** On SIGTERM, after the HTTP server stopped taking requests and before the bus and database close. */
  stopSteps?: ShutdownStep[];
}

/**
 * The life of one service process: configuration, logging, metrics, database with migrations,
 * bus, HTTP with /healthz /readyz /metrics, graceful shutdown. A service's main.ts only says what
 * it builds from these.
 */
export function serviceMain<S extends z.ZodRawShape>(
  name: string,
  shape: S,
  build: (
    context: ServiceContext<z.output<z.ZodObject<S>>>,
  ) => Promise<ServiceDefinition> | ServiceDefinition,
): void {
  runMain(name, async () => {
    const config = loadConfig(shape);
    const base = config as unknown as BaseConfig;
    const logger = createLogger(name, base.LOG_LEVEL);
    warnAboutInsecureSecrets(logger, config);
    const registry = createRegistry(name);
    const db = await openDb({ databaseUrl: base.DATABASE_URL, dataDir: base.DATA_DIR, logger });
    await migrate(db, { logger });
    const bus =
      'BUS_NAMESPACE' in shape
        ? await openBus({
            amqpUrl: base.AMQP_URL,
            namespace: base.BUS_NAMESPACE ?? 'smsgw',
            logger,
          })
        : undefined;

    const service = await build({ config, logger, registry, db, bus });
    const app = createHttpApp({ registry });
    if (service.routes) app.use(service.routes);
    finishApp(app, {
      logger,
      registry,
      readiness: async () => ({
        database: await db.ping(),
        ...(bus && { bus: bus.isReady() }),
        ...service.readiness?.(),
      }),
    });
    const server = await listen(app, base.PORT, base.HOST, service.hotRoute);
    await service.start?.();
    logger.info({ port: base.PORT }, `${name} running`);

    handleShutdown(
      logger,
      [
        { name: 'http', run: () => closeServer(server) },
        ...(service.stopSteps ?? []),
        ...(bus ? [{ name: 'bus', run: () => bus.close() }] : []),
        { name: 'database', run: () => db.close() },
      ],
      base.SHUTDOWN_TIMEOUT_MS,
    );
  });
}
