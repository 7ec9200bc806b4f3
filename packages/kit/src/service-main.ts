import type { Router } from 'express';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import type { Bus } from './bus/bus';
import { openBus } from './bus/open-bus';
import { loadConfig } from './config';
import type { Db } from './db/db';
import { migrate } from './db/migrate';
import { openDb } from './db/open-db';
import { waitForDependency, type RetryPolicy } from './dependency-wait';
import { closeServer, createHttpApp, finishApp, listen } from './http';
import type { HotRoute } from './hot-route';
import { createLogger, type Logger } from './logger';
import { createRegistry } from './metrics';
import { runMain } from './run-main';
import { warnAboutInsecureSecrets } from './secret-policy';
import { handleShutdown, type ShutdownStep } from './shutdown';
import { StartupGate } from './startup-gate';

/** What every service's configuration has (kit serviceEnv). */
interface BaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  SHUTDOWN_TIMEOUT_MS: number;
  DEPENDENCY_RETRY_INITIAL_MS: number;
  DEPENDENCY_RETRY_MAX_MS: number;
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
  /** Runs once the service's routes are served (consumers, sessions). */
  start?: () => Promise<void>;
  /** On SIGTERM, after the HTTP server stopped taking requests and before the bus and database close. */
  stopSteps?: ShutdownStep[];
}

/**
 * The life of one service process: configuration, logging, metrics, HTTP with /healthz /readyz
 * /metrics, then the database (with migrations) and the bus, each waited for with back-off for as
 * long as it does not answer, then the service itself, and graceful shutdown at any point of it.
 * A service's main.ts only says what it builds from these.
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
    const policy: RetryPolicy = {
      initialDelayMs: base.DEPENDENCY_RETRY_INITIAL_MS,
      maxDelayMs: base.DEPENDENCY_RETRY_MAX_MS,
    };
    const usesBus = 'BUS_NAMESPACE' in shape;
    const db = await openDb({ databaseUrl: base.DATABASE_URL, dataDir: base.DATA_DIR, logger });
    let bus: Bus | undefined;
    let service: ServiceDefinition | undefined;
    let started = false;

    const gate = new StartupGate(name);
    const app = createHttpApp({ registry });
    app.use(gate.middleware);
    finishApp(app, {
      logger,
      registry,
      readiness: async () => ({
        database: await db.ping(),
        ...(usesBus && { bus: bus?.isReady() ?? false }),
        started,
        ...service?.readiness?.(),
      }),
    });
    const server: Server = await listen(app, base.PORT, base.HOST, gate.hotRoute);

    const startup = new AbortController();
    const starting = (async () => {
      const wait = { logger, policy, signal: startup.signal };
      await waitForDependency('Postgres', () => migrate(db, { logger }), wait);
      if (usesBus)
        bus = await waitForDependency(
          'RabbitMQ',
          () =>
            openBus({
              amqpUrl: base.AMQP_URL,
              namespace: base.BUS_NAMESPACE ?? 'smsgw',
              logger,
              maxReconnectDelayMs: policy.maxDelayMs,
            }),
          { ...wait, discard: (opened: Bus) => opened.close() },
        );
      service = await build({ config, logger, registry, db, bus });
      gate.open(service.routes, service.hotRoute);
      await service.start?.();
      started = true;
    })();

    handleShutdown(
      logger,
      async () => {
        // A start in progress ends first (a wait at once), so what it opened is closed below.
        startup.abort();
        await starting.catch(() => undefined);
        return [
          { name: 'http', run: () => closeServer(server) },
          ...(service?.stopSteps ?? []),
          ...(bus ? [{ name: 'bus', run: () => bus!.close() }] : []),
          { name: 'database', run: () => db.close() },
        ];
      },
      base.SHUTDOWN_TIMEOUT_MS,
    );

    await starting;
    logger.info({ port: base.PORT }, `${name} running`);
  });
}
