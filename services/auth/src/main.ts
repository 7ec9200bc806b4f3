import { serviceMain } from '@smsgw/kit';
import { authSettings, createAuthService } from './auth-service';
import { authConfigShape } from './config';

serviceMain('auth', authConfigShape, ({ config, db, bus, logger }) => {
  const auth = createAuthService({ db, bus: bus!, logger, ...authSettings(config) });
  return {
    routes: auth.routes,
    start: () => auth.start(),
    stopSteps: [{ name: 'account changes', run: () => auth.stop() }],
  };
});
