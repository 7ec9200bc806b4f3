import { followAccountChanges, serviceMain, type Consumer } from '@smsgw/kit';
import { gatewayConfigShape } from './config';
import { HttpCredentialClient } from './credential-client';
import { createGatewayService, gatewaySettings } from './gateway-service';
import { openOwnPorts, ownPortsWanted, type OpenOwnPorts } from './edge/own-ports';

serviceMain('api-gateway', gatewayConfigShape, ({ config, db, bus, logger, registry }) => {
  const verifier = new HttpCredentialClient(config.AUTH_URL, config.INTERNAL_TOKEN);
  const gateway = createGatewayService({
    registry,
    db,
    bus: bus!,
    verifier,
    logger,
    ...gatewaySettings(config),
    consoleDir: config.CONSOLE_DIR,
  });
  let following: Consumer | undefined;
  let ownPorts: OpenOwnPorts | undefined;
  const wanted = ownPortsWanted(config, gateway.ownPortRoutes, gateway.ownPortHotRoutes);
  return {
    routes: gateway.routes,
    hotRoute: gateway.hotRoute,
    readiness: () => ({
      ...Object.fromEntries(wanted.map((w) => [`${w.name} port`, false])),
      ...ownPorts?.readiness(),
    }),
    start: async () => {
      ownPorts = await openOwnPorts(wanted, { host: config.HOST, registry, logger });
      following = await followAccountChanges(bus!, [verifier], logger);
    },
    stopSteps: [
      {
        name: 'own ports',
        run: async () =>
          Promise.all((ownPorts?.stopSteps ?? []).map((s) => s.run())).then(() => undefined),
      },
      { name: 'account changes', run: async () => following?.cancel() },
      ...gateway.stopSteps,
    ],
  };
});
