/** The OpenAPI paths of the web console's sessions (docs/console.md § Sessions). */
import { CONSOLE_SESSION_PATH } from './console';
import type { OpenApiParts } from './openapi-inbound';

type Json = Record<string, unknown>;

const session = [{ consoleSession: [] }];
const csrf = {
  name: 'X-CSRF-Token',
  in: 'header',
  required: true,
  schema: { type: 'string' },
  description: "The session's csrfToken, as every state-changing request of a session carries it",
};

export function consolePaths(p: OpenApiParts): Json {
  return {
    [CONSOLE_SESSION_PATH]: {
      post: {
        summary:
          'Log in to the web console: a customer with its username and password (the login limits apply), an operator with an admin token. Sets the HttpOnly, SameSite=Strict session cookie smsgw_console',
        security: [],
        requestBody: { required: true, ...p.json('ConsoleLogin') },
        responses: {
          201: {
            description: 'The session made, and its cookie set',
            ...p.json('ConsoleSessionInfo'),
          },
          ...p.pick(400, 401, 403),
        },
      },
      get: {
        summary: 'Who the session of the request is, its CSRF token and when it ends',
        security: session,
        responses: {
          200: { description: 'The session', ...p.json('ConsoleSessionInfo') },
          ...p.pick(401, 403),
        },
      },
      delete: {
        summary: 'Log out: ends the session on the server and clears its cookie',
        security: session,
        parameters: [csrf],
        responses: { 204: { description: 'Ended' }, ...p.pick(401, 403) },
      },
    },
  };
}
