import pino from 'pino';

export type Logger = pino.Logger;

/** `destination`: where lines go instead of stdout (a test reading what was logged). */
export function createLogger(
  service: string,
  level: string = 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options = { level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}
