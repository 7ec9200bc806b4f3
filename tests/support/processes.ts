export {
  WORKSPACE_ROOT as ROOT,
  freePort,
  runNode,
  startService,
  type ServiceProcess,
} from '@smsgw/kit/testing';
