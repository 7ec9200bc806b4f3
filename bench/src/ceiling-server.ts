import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The framework ceiling: express answering a constant on this machine, in the load generator's process. */
export async function startCeilingServer(): Promise<{ url: string; close(): void }> {
  const app = express();
  app.post('/secure/send', (req, res) => {
    req.resume();
    req.on('end', () => res.json({ data: 'Success "00000000-0000-0000-0000-000000000000' }));
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/secure/send`,
    close: () => server.close(),
  };
}
