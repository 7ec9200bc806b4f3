export * from './smsc-connector';
export * from './encoding';
export * from './smpp-url';
export * from './smpp-connector';
export * from './smpp-simulator';
export * from './http-connector';
export * from './sender-address';
export { receiptStatLabel } from './receipt-text';
