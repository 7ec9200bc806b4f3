export * from './route-table';
export * from './mt-router';
export * from './time-window';
export * from './mo-route-match';
export * from './price-book';
