import { serviceMain } from '@smsgw/kit';
import { schedulerConfigShape } from './config';
import { createSchedulerService } from './scheduler-service';

serviceMain('batch-scheduler', schedulerConfigShape, ({ db, bus, logger, registry }) => {
  const scheduler = createSchedulerService({ db, bus: bus!, logger, registry });
  return {
    start: () => scheduler.start(),
    stopSteps: [{ name: 'scheduler', run: () => scheduler.stop() }],
  };
});
