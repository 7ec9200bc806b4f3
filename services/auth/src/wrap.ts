import type express from 'express';
import type { RequestHandler } from 'express';

/** An async route handler whose rejection goes to the error middleware. */
export const wrap =
  (fn: (req: express.Request, res: express.Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).catch(next);
  };
