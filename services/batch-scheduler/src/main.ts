import { serviceMain } from '@smsgw/kit';
import { schedulerConfigShape } from './config';
import { createSchedulerService, schedulerSettings } from './scheduler-service';

serviceMain('batch-scheduler', schedulerConfigShape, ({ config, db, bus, logger, registry }) => {
  const scheduler = createSchedulerService({
    db,
    bus: bus!,
    logger,
    registry,
    ...schedulerSettings(config),
  });
  return {
    start: () => scheduler.start(),
    stopSteps: [{ name: 'scheduler', run: () => scheduler.stop() }],
  };
});
