import { serviceMain } from '@smsgw/kit';
import { authSettings, createAuthService } from './auth-service';
import { authConfigShape } from './config';

serviceMain('auth', authConfigShape, ({ config, db, registry, logger }) => {
  const auth = createAuthService({ db, registry, logger, ...authSettings(config) });
  return { routes: auth.routes, stopSteps: [{ name: 'login-throttle', run: () => auth.close() }] };
});
