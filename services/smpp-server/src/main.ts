import { serviceMain } from '@smsgw/kit';
import { HttpBindCredentials } from './bind-credentials';
import { smppServerConfigShape } from './config';
import { createSmppServerService } from './smpp-server-service';

serviceMain('smpp-server', smppServerConfigShape, ({ config, db, bus, logger, registry }) => {
  const service = createSmppServerService({
    config,
    db,
    bus: bus!,
    logger,
    registry,
    credentials: new HttpBindCredentials(config.AUTH_URL, config.INTERNAL_TOKEN),
  });
  return { start: () => service.start(), stopSteps: service.stopSteps };
});
