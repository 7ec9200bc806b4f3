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
