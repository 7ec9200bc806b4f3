import * as smpp from 'smpp';

/**
 * node-smpp decodes an incoming short_message into text with its own guess of the alphabet, which
 * changes GSM characters such as @ and $ (docs/architecture.md § SMPP). We need the bytes as sent,
 * so decoding of short_message and message_payload is turned off for this process: both arrive as
 * Buffers.
 */
let applied = false;
export function useRawShortMessages(): typeof smpp {
  if (!applied) {
    smpp.filters.message.decode = (value: unknown) => value;
    refuseShortHeaders();
    applied = true;
  }
  return smpp;
}

/**
 * A command_length under 16 cannot be a PDU (its header alone is 16 octets). node-smpp takes 0 as
 * "nothing yet" and reads the next four octets as a new length, and 1 to 3 as a wait that never
 * ends; refused here, it is a read error, which closes the session.
 */
function refuseShortHeaders(): void {
  const commandLength = smpp.PDU.commandLength.bind(smpp.PDU);
  smpp.PDU.commandLength = (stream) => {
    const length = commandLength(stream);
    if (length !== false && length < 16) throw new Error(`PDU length ${length} is under 16`);
    return length;
  };
}

/** short_message as bytes, whatever shape it arrived in. */
export function shortMessageBytes(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value && typeof value === 'object' && 'message' in value) {
    const message = value.message;
    return Buffer.isBuffer(message) ? message : Buffer.from(String(message), 'latin1');
  }
  return Buffer.from(typeof value === 'string' ? value : '', 'latin1');
}

const statusNames = new Map<number, string>(
  Object.entries(smpp.errors).map(([name, code]) => [code, name]),
);

export function statusName(status: number): string {
  return statusNames.get(status) ?? `ESME_0x${status.toString(16).padStart(4, '0')}`;
}

/**
 * A C-octet string field of a decoded PDU (`system_id`, addresses, `message_id`), '' when absent.
 */
export function pduText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  return typeof value === 'number' ? String(value) : '';
}
