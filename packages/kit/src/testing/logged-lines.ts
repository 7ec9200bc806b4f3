import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger';

/** A logger whose lines are kept, for a test that waits for what a component logs. */
export function loggedLines(service: string, level: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger(service, level, sink), lines };
}
