// What other packages use: the scheduler as both modes wire it, and its environment for the
// deployment tests.
export { createSchedulerService, schedulerSettings } from './scheduler-service';
export { schedulerConfigShape } from './config';
