export * from './scheduler-service';
export * from './batch-expander';
export * from './batch-scheduler';
export * from './config';
