export * from './notifier-service';
export * from './url-guard';
export * from './callback-sender';
export * from './callback-store';
export * from './config';
