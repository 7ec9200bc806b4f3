// What other packages use: the service as both modes wire it, its environment for the deployment
// tests, its routes for the API document test, and the batch store for the scheduler's tests.
export { createGatewayService, gatewaySettings, type GatewayService } from './gateway-service';
export { gatewayConfigShape } from './config';
export { createGatewayRoutes } from './routes';
export { BatchStore } from './batch-store';
export type { PlannedEntry } from './batch-plan';
export { IdempotentRequests } from './idempotency';
export { openOwnPorts, ownPortsEnv, ownPortsWanted, type OpenOwnPorts } from './edge/own-ports';
