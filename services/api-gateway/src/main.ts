import { followAccountChanges, serviceMain, type Consumer } from '@smsgw/kit';
import { gatewayConfigShape } from './config';
import { HttpCredentialClient } from './credential-client';
import { createGatewayService, gatewaySettings } from './gateway-service';

serviceMain('api-gateway', gatewayConfigShape, ({ config, db, bus, logger, registry }) => {
  const verifier = new HttpCredentialClient(config.AUTH_URL, config.INTERNAL_TOKEN);
  const gateway = createGatewayService({
    registry,
    db,
    bus: bus!,
    verifier,
    logger,
    ...gatewaySettings(config),
  });
  let following: Consumer | undefined;
  return {
    routes: gateway.routes,
    hotRoute: gateway.hotRoute,
    start: async () => {
      following = await followAccountChanges(bus!, [verifier], logger);
    },
    stopSteps: [
      { name: 'account changes', run: async () => following?.cancel() },
      ...gateway.stopSteps,
    ],
  };
});
