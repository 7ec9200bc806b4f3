import {
  SendRequestSchema,
  decideReportWish,
  withoutReportAsk,
  type InterfaceReport,
  type ReportWish,
} from '../src';

const URL = 'http://hooks.example/dlr';

/**
 * A request as acceptance has it: the body through /secure/send's schema (Jasmin's send.py rule,
 * decideReport), with the interface's way of reporting added when it asks for a report, as the
 * send acceptor adds it.
 */
function accepted(body: Record<string, unknown>, via?: InterfaceReport): Record<string, unknown> {
  const request = SendRequestSchema.parse({ to: '41790000001', content: 'hi', ...body });
  return via !== undefined && request.dlr === 'yes' ? { ...request, ...via } : request;
}

const wish = (
  mask: number,
  style: ReportWish['style'],
  method: ReportWish['method'] = 'POST',
  url: string | null = URL,
): ReportWish => ({ mask, url, method, style });

/** Kannel's sendsms as its edge passes it (kannelReportWish): a GET URL and the mask. */
const kannel = (mask: number): Record<string, unknown> =>
  accepted(
    { 'dlr-url': URL, 'dlr-method': 'GET', 'dlr-level': 3 },
    {
      dlr_style: 'kannel',
      dlr_mask: mask,
    },
  );

describe('decideReportWish: each interface’s parameters to the one wish stored', () => {
  const cases: [string, Record<string, unknown>, ReportWish | null][] = [
    // Jasmin REST and /secure/send (send.py): dlr-url asks, level 1 and POST unless given.
    ['REST: no report parameter', accepted({}), null],
    [
      'REST: dlr yes without a URL reports to nobody',
      accepted({ dlr: 'yes', 'dlr-level': 2 }),
      null,
    ],
    [
      'REST: dlr no with a URL (the URL asks)',
      accepted({ dlr: 'no', 'dlr-url': URL }),
      wish(24, 'rest'),
    ],
    ['REST: dlr-url alone is level 1, POST', accepted({ 'dlr-url': URL }), wish(24, 'rest')],
    [
      'REST: level 2 is the handset receipt only',
      accepted({ dlr: 'yes', 'dlr-url': URL, 'dlr-level': 2 }),
      wish(3, 'rest'),
    ],
    [
      'REST: level 3 is both, by GET when asked',
      accepted({ dlr: 'yes', 'dlr-url': URL, 'dlr-level': 3, 'dlr-method': 'get' }),
      wish(27, 'rest', 'GET'),
    ],
    // Jasmin's HTTP interface (/send): the same rule, reports in its form.
    [
      'Jasmin /send: level 1, the SMSC’s answer only',
      accepted({ dlr: 'yes', 'dlr-url': URL, 'dlr-level': 1 }, { dlr_style: 'jasmin' }),
      wish(24, 'jasmin'),
    ],
    [
      'Jasmin /send: level 2',
      accepted({ dlr: 'yes', 'dlr-url': URL, 'dlr-level': 2 }, { dlr_style: 'jasmin' }),
      wish(3, 'jasmin'),
    ],
    ['Jasmin /send: no dlr-url', accepted({ dlr: 'yes' }, { dlr_style: 'jasmin' }), null],
    // Kannel's sendsms: the events its dlr-mask names (gw/dlr.h), by GET; buffered (4) is never
    // reported, as the gateway reports final receipts only.
    ['Kannel: mask 8, the SMSC took it', kannel(8), wish(8, 'kannel', 'GET')],
    ['Kannel: mask 16, the SMSC refused it', kannel(16), wish(16, 'kannel', 'GET')],
    ['Kannel: mask 1, delivered only', kannel(1), wish(1, 'kannel', 'GET')],
    ['Kannel: mask 31 without buffered', kannel(31), wish(27, 'kannel', 'GET')],
    ['Kannel: mask 63 without buffered and 32', kannel(63), wish(27, 'kannel', 'GET')],
    ['Kannel: mask 4 alone asks for nothing reported', kannel(4), null],
    ['Kannel: mask -1 asks for nothing', kannel(-1), null],
    // SMPP: registered_delivery keeps the handset receipt for the account's sessions.
    ['SMPP: registered_delivery', { smpp_receipt: 'yes' }, wish(3, 'smpp', null, null)],
    ['SMPP: no registered_delivery', {}, null],
  ];

  it.each(cases)('%s', (_name, ask, expected) => {
    expect(decideReportWish(ask)).toEqual(expected);
  });

  it('leaves none of the fields the wish was decided from in the params', () => {
    const request = accepted(
      { dlr: 'yes', 'dlr-url': URL, 'dlr-level': 2, tags: [1] },
      {
        dlr_style: 'jasmin',
      },
    );
    expect(withoutReportAsk({ ...request, smpp_receipt: 'yes' })).toEqual({
      to: '41790000001',
      content: 'hi',
      tags: [1],
    });
  });
});
