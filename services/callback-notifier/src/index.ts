// What other packages use: the notifier as both modes wire it, and its environment for the
// deployment tests.
export { createNotifierService, notifierSettings } from './notifier-service';
export { notifierConfigShape } from './config';
