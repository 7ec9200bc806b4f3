#!/usr/bin/env node
import { CommanderError } from 'commander';
import { GatewayCallError } from './gateway-client';
import { buildProgram } from './program';

const program = buildProgram({
  env: process.env,
  print: (line) => process.stdout.write(`${line}\n`),
  ...(process.stderr.isTTY && { progress: process.stderr }),
});
program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const detail =
    err instanceof GatewayCallError && err.code !== 'UNREACHABLE'
      ? `${err.code}: ${err.message}`
      : (err as Error).message;
  process.stderr.write(`smsgw: ${detail}\n`);
  if (err instanceof GatewayCallError)
    for (const line of err.errors) process.stderr.write(`  ${line}\n`);
  process.exit(1);
});
