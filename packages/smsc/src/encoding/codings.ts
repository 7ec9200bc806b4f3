/** SMPP data_coding values this gateway sends text in (SMPP 3.4 5.2.19). */
export const GSM7 = 0;
export const ASCII = 1;
export const BINARY_8BIT = 2;
export const LATIN1 = 3;
export const BINARY = 4;
export const UCS2 = 8;

export const TEXT_CODINGS: readonly number[] = [GSM7, ASCII, LATIN1, UCS2];

export const CODING_NAMES: Readonly<Record<number, string>> = {
  0: 'GSM 03.38',
  1: 'ASCII',
  2: '8-bit binary',
  3: 'Latin-1',
  4: '8-bit binary',
  5: 'JIS',
  6: 'Cyrillic',
  7: 'Hebrew',
  8: 'UCS-2',
  9: 'pictogram',
  10: 'ISO-2022-JP',
  13: 'extended Kanji',
  14: 'KS C 5601',
};

/**
 * data_coding with a GSM message class, as Kannel writes it (gw/sms.c, fields_to_dcs: coding
 * group 00 with bit 4 set, the alphabet in bits 3–2, the class in bits 1–0): 0x10 | class for the
 * GSM default alphabet, 0x14 | class for 8-bit data, 0x18 | class for UCS-2. The octets of the
 * message are the same as without a class, so parts and price are too. undefined: the coding has
 * no form with a class.
 */
export function withMessageClass(dataCoding: number, messageClass: number): number | undefined {
  const alphabet =
    dataCoding === GSM7
      ? 0
      : dataCoding === BINARY_8BIT || dataCoding === BINARY
        ? 1
        : dataCoding === UCS2
          ? 2
          : undefined;
  if (alphabet === undefined || messageClass < 0 || messageClass > 3) return undefined;
  return 0x10 | (alphabet << 2) | messageClass;
}
