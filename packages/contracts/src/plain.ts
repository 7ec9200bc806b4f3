/**
 * The contracts' constant lists that need no zod: what the web console imports as values
 * (`@smsgw/contracts/plain`), so that the package's schemas stay out of the browser's bundle.
 */
export * from './scopes';
export * from './states';
