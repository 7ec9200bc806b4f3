import { serviceMain } from '@smsgw/kit';
import { notifierConfigShape } from './config';
import { createNotifierService, notifierSettings } from './notifier-service';

serviceMain('callback-notifier', notifierConfigShape, ({ config, db, bus, logger, registry }) => {
  const notifier = createNotifierService({
    db,
    bus: bus!,
    logger,
    registry,
    ...notifierSettings(config),
  });
  return {
    start: () => notifier.start(),
    stopSteps: [{ name: 'notifier', run: () => notifier.stop() }],
  };
});
