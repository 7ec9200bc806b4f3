import { Router } from 'express';
import { createConsoleRoutes } from '@smsgw/console-session';
import { serviceMain } from '@smsgw/kit';
import { authSettings, createAuthService } from './auth-service';
import { authConfigShape } from './config';

serviceMain('auth', authConfigShape, ({ config, db, bus, registry, logger }) => {
  const auth = createAuthService({ db, bus: bus!, registry, logger, ...authSettings(config) });
  // With CONSOLE_DIR, auth serves the console's pages too: an operator who reaches auth alone (a
  // port-forward to auth-admin) has the pages, their sessions and the admin API on one origin.
  const routes = Router();
  if (config.CONSOLE_DIR !== undefined) routes.use(createConsoleRoutes(config.CONSOLE_DIR));
  routes.use(auth.routes);
  return {
    routes,
    start: () => auth.start(),
    stopSteps: [{ name: 'account changes and login-throttle', run: () => auth.close() }],
  };
});
