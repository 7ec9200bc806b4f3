import { serviceMain } from '@smsgw/kit';
import { schedulerConfigShape } from './config';
import { createSchedulerService } from './scheduler-service';

serviceMain('batch-scheduler', schedulerConfigShape, ({ config, db, bus, logger, registry }) => {
  const scheduler = createSchedulerService({
    db,
    bus: bus!,
    logger,
    registry,
    retentionDays: config.MESSAGE_RETENTION_DAYS,
  });
  return {
    start: () => scheduler.start(),
    stopSteps: [{ name: 'scheduler', run: () => scheduler.stop() }],
  };
});
