export * from './smsc-connector';
export * from './encoding';
export * from './smpp-url';
export * from './smpp-connector';
export * from './smpp-simulator';
export * from './http-connector';
export { receiptStatLabel } from './receipt-text';
