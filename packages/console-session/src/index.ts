export * from './console-sessions';
export * from './session-cookie';
export * from './console-pages';
