import { serviceMain } from '@smsgw/kit';
import { authSettings, createAuthService } from './auth-service';
import { authConfigShape } from './config';

serviceMain('auth', authConfigShape, ({ config, db }) => {
  const auth = createAuthService({ db, ...authSettings(config) });
  return { routes: auth.routes };
});
