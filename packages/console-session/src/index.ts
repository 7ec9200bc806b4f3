export * from './console-sessions';
export * from './session-cookie';
