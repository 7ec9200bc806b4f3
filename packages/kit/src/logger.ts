import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(service: string, level: string = 'info'): Logger {
  return pino({ level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime });
}
