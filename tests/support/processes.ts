export {
  WORKSPACE_ROOT as ROOT,
  freePort,
  runNode,
  startService,
  type ServiceProcess,
} from '@smsgw/kit/testing';

/** The five services, in the order a cluster starts them. */
export const SERVICE_NAMES = [
  'auth',
  'api-gateway',
  'batch-scheduler',
  'dispatcher',
  'callback-notifier',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
