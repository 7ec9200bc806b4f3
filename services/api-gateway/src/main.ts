import { serviceMain } from '@smsgw/kit';
import { gatewayConfigShape } from './config';
import { HttpCredentialClient } from './credential-client';
import { createGatewayService, gatewaySettings } from './gateway-service';

serviceMain('api-gateway', gatewayConfigShape, ({ config, db, bus, logger, registry }) => {
  const gateway = createGatewayService({
    registry,
    db,
    bus: bus!,
    verifier: new HttpCredentialClient(config.AUTH_URL, config.INTERNAL_TOKEN),
    logger,
    ...gatewaySettings(config),
  });
  return { routes: gateway.routes, stopSteps: gateway.stopSteps };
});
