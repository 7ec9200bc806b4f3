// What other packages use: the service as both modes wire it, and its environment for the
// deployment tests.
export {
  createSmppServerService,
  type SmppServerConfig,
  type SmppServerService,
} from './smpp-server-service';
export { smppServerConfigShape } from './config';
export { STATUS, REFUSAL_STATUS, INVALID_FIELD_STATUS, refusalStatus } from './smpp-status';
