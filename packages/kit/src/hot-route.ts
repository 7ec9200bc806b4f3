import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A route the HTTP server offers each request before express: it answers the requests it takes and
 * returns true, and returns false, having touched nothing, for those express is to answer. For the
 * one route that comes by the thousand (docs/decisions.md § HTTP).
 */
export type HotRoute = (req: IncomingMessage, res: ServerResponse) => boolean;
