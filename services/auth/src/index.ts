// What other packages use: auth as both modes wire it, its environment for the deployment tests,
// and its routes for the API document test.
export { authSettings, createAuthService } from './auth-service';
export { createAuthRoutes } from './routes';
export { authConfigShape } from './config';
export type { SmppBinds } from './smpp-binds';
