import { serviceMain } from '@smsgw/kit';
import { dispatcherConfigShape } from './config';
import { dispatcherFromConfig } from './dispatcher-service';
import { openSmscLink } from './smsc-link';

serviceMain('dispatcher', dispatcherConfigShape, async ({ config, db, bus, logger, registry }) => {
  const smsc = await openSmscLink(config.SMSC_URL, logger);
  const dispatcher = dispatcherFromConfig(config, { db, bus: bus!, logger, registry, smsc });
  return {
    readiness: () => dispatcher.readiness(),
    start: () => dispatcher.start(),
    stopSteps: [
      { name: 'dispatch', run: () => dispatcher.stop() },
      { name: 'smsc', run: () => smsc.close() },
    ],
  };
});
