/** SMPP type of number (TON) and numbering plan (NPI) of a sender, and its digits as sent. */
export interface SourceAddress {
  ton: number;
  npi: number;
  addr: string;
}

export const TON = { unknown: 0, international: 1, networkSpecific: 3, alphanumeric: 5 } as const;
export const NPI = { unknown: 0, isdn: 1 } as const;

/**
 * TON and NPI from the sender's form, as Kannel's SMPP client does when it detects the address:
 * letters make it alphanumeric (5/0); `+` and digits make it international (1/1), sent without
 * the `+`. Kannel leaves other digits to its national default; here a number of 3 to 8 digits is a
 * short code (network specific, 3/0) and a longer one an international number with its country
 * code (1/1). No sender lets the SMSC fill in its own (0/0).
 */
export function sourceAddress(from: string | null): SourceAddress {
  if (from === null || from === '') return { ton: TON.unknown, npi: NPI.unknown, addr: '' };
  if (/^\+\d+$/.test(from)) return { ton: TON.international, npi: NPI.isdn, addr: from.slice(1) };
  if (/^\d+$/.test(from)) {
    if (from.length >= 3 && from.length <= 8)
      return { ton: TON.networkSpecific, npi: NPI.unknown, addr: from };
    if (from.length > 8) return { ton: TON.international, npi: NPI.isdn, addr: from };
    return { ton: TON.unknown, npi: NPI.isdn, addr: from };
  }
  return { ton: TON.alphanumeric, npi: NPI.unknown, addr: from };
}
