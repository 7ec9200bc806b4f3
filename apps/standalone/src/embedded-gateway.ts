import type { Server } from 'node:http';
import { authSettings, createAuthService } from '@smsgw/auth';
import {
  createGatewayService,
  gatewaySettings,
  openOwnPorts,
  ownPortsWanted,
} from '@smsgw/api-gateway';
import { createSchedulerService, schedulerSettings } from '@smsgw/batch-scheduler';
import { createNotifierService, notifierSettings } from '@smsgw/callback-notifier';
import { dispatcherFromConfig, openSmscLink } from '@smsgw/dispatcher';
import { createSmppServerService } from '@smsgw/smpp-server';
import {
  closeServer,
  createHttpApp,
  createRegistry,
  finishApp,
  listen,
  migrate,
  openBus,
  openDb,
  type Logger,
  type ShutdownStep,
} from '@smsgw/kit';
import type { z } from 'zod';
import type { standaloneConfigShape } from './config';
import { builtConsole } from './built-console';
import { localSecret } from './local-secrets';

type Config = z.output<z.ZodObject<typeof standaloneConfigShape>>;

export interface EmbeddedGateway {
  server: Server;
  port: number;
  /** Where customers bind over SMPP (and over TLS, when configured). */
  smppPort: number;
  smppTlsPort?: number | undefined;
  /** Jasmin's HTTP interface and Kannel's sendsms on ports of their own, when asked for. */
  jasminHttpPort?: number | undefined;
  kannelSendsmsPort?: number | undefined;
  /** The built-in simulator's control endpoint, when it is the SMSC (SMSC_URL unset). */
  simulatorControlUrl?: string | undefined;
  /** Whether the web console is served at /console/ (it is built). */
  consoleServed: boolean;
  /** In shutdown order: stop intake, finish in-flight work, close. */
  shutdownSteps: ShutdownStep[];
}

/** All five services in one process behind one HTTP port (docs/architecture.md § The parts). */
export async function startEmbeddedGateway(
  config: Config & { ADMIN_TOKEN: string; JWT_SECRET: string },
  logger: Logger,
): Promise<EmbeddedGateway> {
  const registry = createRegistry('standalone');
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
  await migrate(db, { logger });
  const bus = await openBus({ amqpUrl: config.AMQP_URL, namespace: config.BUS_NAMESPACE, logger });
  const smsc = await openSmscLink(config.SMSC_URL, logger);
  // Generated once into DATA_DIR like the other secrets, so sealed passwords open after a restart.
  const connectorKey = localSecret(
    config.DATA_DIR,
    'connector-secret-key',
    config.CONNECTOR_SECRET_KEY,
  ).value;
  const withKey = { ...config, CONNECTOR_SECRET_KEY: connectorKey };

  const auth = createAuthService({ db, bus, registry, logger, ...authSettings(withKey) });
  const consoleDir = builtConsole();
  const gateway = createGatewayService({
    registry,
    db,
    bus,
    verifier: auth.verifier,
    logger,
    ...gatewaySettings(config),
    consoleDir,
  });
  const dispatcher = dispatcherFromConfig(withKey, { db, bus, logger, registry, smsc });
  const scheduler = createSchedulerService({
    db,
    bus,
    logger,
    registry,
    ...schedulerSettings(config),
  });
  const notifier = createNotifierService({
    db,
    bus,
    logger,
    registry,
    ...notifierSettings(config),
  });

  const smppServer = createSmppServerService({
    config,
    db,
    bus,
    logger,
    registry,
    credentials: auth.smppBinds,
  });

  const ownPorts = await openOwnPorts(
    ownPortsWanted(config, gateway.ownPortRoutes, gateway.ownPortHotRoutes),
    {
      host: config.HOST,
      registry,
      logger,
    },
  );
  const app = createHttpApp({ registry });
  app.use(auth.routes);
  app.use(gateway.routes);
  finishApp(app, {
    logger,
    registry,
    readiness: async () => ({
      database: await db.ping(),
      bus: bus.isReady(),
      ...dispatcher.readiness(),
      ...ownPorts.readiness(),
    }),
  });

  await auth.start();
  await scheduler.start();
  await notifier.start();
  await dispatcher.start();
  const server = await listen(app, config.PORT, config.HOST, gateway.hotRoute);
  await smppServer.start();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;

  return {
    server,
    port,
    smppPort: smppServer.server.port,
    smppTlsPort: smppServer.server.tlsPort,
    jasminHttpPort: ownPorts.ports['jasmin-http'],
    kannelSendsmsPort: ownPorts.ports['kannel-sendsms'],
    simulatorControlUrl: smsc.simulatorControlUrl,
    consoleServed: consoleDir !== undefined,
    shutdownSteps: [
      { name: 'http', run: () => closeServer(server) },
      ...ownPorts.stopSteps,
      ...smppServer.stopSteps,
      ...gateway.stopSteps,
      { name: 'dispatcher', run: () => dispatcher.stop() },
      { name: 'scheduler', run: () => scheduler.stop() },
      { name: 'notifier', run: () => notifier.stop() },
      { name: 'smsc', run: () => smsc.close() },
      { name: 'account changes and login-throttle', run: () => auth.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'database', run: () => db.close() },
    ],
  };
}
