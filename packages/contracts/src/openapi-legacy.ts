/**
 * The OpenAPI paths of Jasmin's HTTP interface and Kannel's sendsms (docs/compatibility.md): their
 * clients' own parameters, credentials among them, as query or form fields, answered as those
 * gateways answer.
 */

type Json = Record<string, unknown>;

const param = (name: string, description: string, required = false): Json => ({
  name,
  in: 'query',
  required,
  schema: { type: 'string' },
  description,
});
const text = (description: string): Json => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});
const json = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: {} } },
});
const form: Json = {
  required: false,
  content: {
    'application/x-www-form-urlencoded': { schema: { type: 'object' } },
    'application/json': { schema: { type: 'object' } },
  },
};

const credentials = [
  param('username', "The account's name", true),
  param('password', "The account's password", true),
];

const jasminSend: Json = {
  summary:
    'Jasmin\'s HTTP interface: one message; answers Success "<id>" or Error "<reason>" as text, with Jasmin\'s statuses',
  parameters: [
    ...credentials,
    param('to', 'Destination, digits with an optional +', true),
    param('from', 'Sender'),
    param('content', 'Text (or hex-content)'),
    param('hex-content', 'Octets in hex (or content)'),
    param('coding', 'SMPP data coding'),
    param('priority', '0 to 3'),
    param('sdt', 'SMPP schedule_delivery_time'),
    param('validity-period', 'Minutes'),
    param('dlr', 'yes or no'),
    param('dlr-url', 'Where delivery reports go'),
    param('dlr-level', '1 SMSC, 2 handset, 3 both'),
    param('dlr-method', 'GET or POST'),
    param('tags', 'Comma-separated'),
  ],
  responses: {
    200: text('Success "<id>"'),
    400: text('Error "<reason>"'),
    403: text('Error "<reason>": credentials, account or credit'),
    412: text('Error "No route found"'),
  },
};

const kannelSendsms: Json = {
  summary:
    "Kannel's sendsms: a message to one or more receivers (to, separated by spaces); answers 0: Accepted for delivery (202) or Kannel's refusals as text",
  parameters: [
    ...credentials,
    param('to', 'Receivers separated by spaces', true),
    param('from', 'Sender'),
    param('text', 'The message, in charset'),
    param('coding', '0 7-bit, 1 8-bit, 2 UCS-2'),
    param('charset', 'Charset of text'),
    param('validity', 'Minutes'),
    param('deferred', 'Minutes'),
    param('priority', '0 to 3'),
  ],
  requestBody: form,
  responses: {
    202: text('0: Accepted for delivery'),
    400: text('A field misformed, rejected'),
    403: text('Authorization failed for sendsms, or Not routable'),
    503: text('Temporal failure, try again later.'),
  },
};

export function legacyPaths(): Json {
  return {
    '/send': { get: jasminSend, post: { ...jasminSend, requestBody: form } },
    '/balance': {
      get: {
        summary: "Jasmin's HTTP interface: the account's balance and sms_count ('ND' for no limit)",
        parameters: credentials,
        responses: {
          200: json('{ balance, sms_count }'),
          400: json('reason'),
          403: json('reason'),
        },
      },
    },
    '/rate': {
      get: {
        summary: "Jasmin's HTTP interface: a message's price per part and its parts",
        parameters: [
          ...credentials,
          param('to', 'Destination', true),
          param('content', 'Text'),
          param('hex-content', 'Octets in hex'),
          param('coding', 'SMPP data coding'),
        ],
        responses: {
          200: json('{ unit_rate, submit_sm_count }'),
          400: json('reason'),
          403: json('reason'),
          412: json('"No route found"'),
        },
      },
    },
    '/cgi-bin/sendsms': { get: kannelSendsms, post: kannelSendsms },
  };
}
