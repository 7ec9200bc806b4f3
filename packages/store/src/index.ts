export * from './accounts';
export * from './credit-ledger';
export * from './messages';
export * from './batches';
export * from './job-outbox';
export * from './outcome-outbox';
export * from './callbacks';
export * from './sender-rules';
