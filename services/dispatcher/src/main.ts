import { serviceMain } from '@smsgw/kit';
import { dispatcherConfigShape } from './config';
import { createDispatcherService, dispatcherSettings } from './dispatcher-service';
import { openSmscLink } from './smsc-link';
import { openRateLimiter } from './throughput/open-rate-limiter';

serviceMain('dispatcher', dispatcherConfigShape, async ({ config, db, bus, logger, registry }) => {
  const smsc = await openSmscLink(config.SMSC_URL, logger);
  const dispatcher = createDispatcherService({
    db,
    bus: bus!,
    connector: smsc.connector,
    logger,
    registry,
    ...dispatcherSettings(config),
    rateLimiter: openRateLimiter(config.REDIS_URL, config.BUS_NAMESPACE),
    connectorThroughput: smsc.throughput,
  });
  return {
    readiness: () => dispatcher.readiness(),
    start: () => dispatcher.start(),
    stopSteps: [
      { name: 'dispatch', run: () => dispatcher.stop() },
      { name: 'smsc', run: () => smsc.close() },
    ],
  };
});
