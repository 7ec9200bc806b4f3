// What other packages use: the dispatcher as both modes wire it, its environment for the deployment
// tests, its claims and retry delays for the black-box tests.
export { dispatcherFromConfig, submitRetryDelays } from './dispatcher-service';
export { openSmscLink } from './smsc-link';
export { MessageClaims } from './message-claims';
export { dispatcherConfigShape } from './config';
