/**
 * SMS encoding (docs/architecture.md § Wire compatibility): GSM 03.38 with its extension table,
 * ASCII, Latin-1, UCS-2; parts of 160/153 septets, 70/67 UCS-2 code units, 140/134 octets,
 * concatenated with a UDH (05 00 03 ref total seq); escape sequences and surrogate pairs are never
 * cut in two.
 */
import { TEXT_CODINGS } from './encoding/codings';

export * from './encoding/codings';
export * from './encoding/encoding-error';
export { GSM7_BASIC, GSM7_EXTENSION, gsm7Septets } from './encoding/gsm7';
export { chooseCoding, decodeText, encodeText, fitsGsm7 } from './encoding/text';
export {
  HEX_DEFAULT_CODING,
  planMessage,
  splitMessage,
  stripUdh,
  type EncodedMessage,
  type MessageInput,
  type MessagePlan,
} from './encoding/parts';

/** Codings in which plain text content can be sent. */
export const textCodings = TEXT_CODINGS;
