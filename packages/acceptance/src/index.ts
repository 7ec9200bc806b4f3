// The acceptance of single messages, which every entry point runs: the gateway's HTTP routes, the
// SMPP server's submit_sm, and the replies of Kannel's sms-service in the callback notifier.
export { acceptanceDefaults } from './defaults';
export {
  callbackUrlCheck,
  CallbackUrlCheck,
  type CallbackUrlCheckOptions,
} from './callback-url-check';
export { planMessage } from './message-plan';
export { createAcceptanceRouter, routeOrRefuse, withoutRouting } from './message-routing';
export { MessageStore, type AcceptOutcome, type NewMessage } from './message-store';
export { OptOutGuard } from './optout-guard';
export { notAllowed, SenderGuard, type SenderDecision } from './sender-guard';
export { createSendAcceptor, type SendAcceptor, type SendAcceptorDeps } from './send-acceptor';
export {
  createSendAcceptance,
  type EntryPointOptions,
  type SendAcceptance,
  type SendAcceptanceOptions,
} from './send-acceptance';
export { SendPipeline, type AcceptedMessage } from './send-pipeline/send-pipeline';
export { SubmitJobPublisher } from './send-pipeline/submit-job-publisher';
