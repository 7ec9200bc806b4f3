import { serviceMain } from '@smsgw/kit';
import { authSettings, createAuthService } from './auth-service';
import { authConfigShape } from './config';

serviceMain('auth', authConfigShape, ({ config, db, bus, registry, logger }) => {
  const auth = createAuthService({ db, bus: bus!, registry, logger, ...authSettings(config) });
  return {
    routes: auth.routes,
    start: () => auth.start(),
    stopSteps: [{ name: 'account changes and login-throttle', run: () => auth.close() }],
  };
});
