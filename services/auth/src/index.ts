export * from './auth-service';
export * from './account-store';
export * from './credential-verifier';
export * from './password-hasher';
export * from './token-issuer';
export * from './routes';
export * from './config';
export * from './account-announcer';
