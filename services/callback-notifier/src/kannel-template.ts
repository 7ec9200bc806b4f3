/**
 * Kannel's URL templates (its `dlr-url` and sms-service `get-url`), filled in as its
 * urltrans_fill_escape_codes does (docs/compatibility.md § Kannel's sendsms). The handset is `%p`
 * and the gateway's number `%P` in both: Kannel swaps sender and receiver of an inbound message
 * before filling, and a report carries the sent message's own.
 */
export interface KannelFields {
  /** The message's text: an inbound message's words, or a report's text (`%a %A %b %k %s %S %r`). */
  text: string;
  /** The handset's number (`%p`, `%q`). */
  handset: string;
  /** The gateway's number: the sent message's sender, the inbound message's receiver (`%P`, `%Q`). */
  gateway: string;
  /** `%d`: a report's event (dlr-mask bit), -1 (Kannel's undefined) for an inbound message. */
  dlrEvent?: number;
  /** `%I`: the gateway's id of the message. */
  id: string;
  /** `%F`: the SMSC's id of the message. */
  foreignId?: string;
  /** `%i`: the connector (Kannel's smsc-id). */
  smscId?: string;
  /** `%n`: the service: the account's name (Kannel's sendsms-user or sms-service name). */
  service?: string;
  /** `%t`, `%T`: when the message or report came. */
  time: Date;
  /** `%c`: 0 (7-bit), 1 (8-bit), 2 (UCS-2), -1 when unknown; `%C` the charset it names. */
  coding?: number;
  /** `%m`: the message class, -1 for none (Kannel's undefined). */
  mclass?: number;
  /** `%R`: the message's dlr-url. */
  dlrUrl?: string;
}

/** Kannel's octstr_url_encode: these stay, a space becomes `+`, every other octet `%XX`. */
const SAFE = /[0-9A-Za-z\-_.!~*'()]/;

export function kannelUrlEncode(text: string): string {
  let out = '';
  for (const octet of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(octet);
    if (octet === 0x20) out += '+';
    else if (octet < 0x80 && SAFE.test(c)) out += c;
    else out += `%${octet.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** octstr_split_words: split on white space, empty words dropped. */
function words(text: string): string[] {
  return text.split(/[ \t\n\v\f\r]+/).filter((w) => w.length > 0);
}

const two = (n: number): string => String(n).padStart(2, '0');

/** `00` in front of a number is an international prefix, written `+` (`%q`, `%Q`). */
function plusPrefixed(number: string): string {
  return number.startsWith('00')
    ? `%2B${kannelUrlEncode(number.slice(2))}`
    : kannelUrlEncode(number);
}

const CHARSETS: Record<number, string> = { 0: 'UTF-8', 1: '8-BIT', 2: 'UTF-16BE' };

/** The template with each placeholder replaced; unknown ones are kept as written, as Kannel does. */
export function fillKannelTemplate(template: string, f: KannelFields): string {
  const list = words(f.text);
  let nextArg = 1;
  let out = '';
  for (let pos = 0; pos < template.length; pos++) {
    const c = template[pos];
    if (c !== '%' || pos + 1 >= template.length) {
      out += c;
      continue;
    }
    const code = template[++pos];
    switch (code) {
      case 'a':
        out += list.map(kannelUrlEncode).join('+');
        break;
      case 'A':
      case 'b':
        out += kannelUrlEncode(f.text);
        break;
      case 'c':
        // A report has no coding of its own: Kannel's undefined.
        out += String(f.coding ?? -1);
        break;
      case 'C':
        out += CHARSETS[f.coding ?? 0] ?? 'UTF-8';
        break;
      case 'd':
        out += String(f.dlrEvent ?? 0);
        break;
      case 'F':
        out += kannelUrlEncode(f.foreignId ?? '');
        break;
      case 'i':
        out += kannelUrlEncode(f.smscId ?? '');
        break;
      case 'I':
        out += f.id;
        break;
      case 'k':
        out += list.length > 0 ? kannelUrlEncode(list[0]) : '';
        break;
      case 'm':
        out += String(f.mclass ?? -1);
        break;
      case 'n':
        out += kannelUrlEncode(f.service ?? '');
        break;
      case 'p':
        out += kannelUrlEncode(f.handset);
        break;
      case 'P':
        out += kannelUrlEncode(f.gateway);
        break;
      case 'q':
        out += plusPrefixed(f.handset);
        break;
      case 'Q':
        out += plusPrefixed(f.gateway);
        break;
      case 'r':
        out += list.slice(nextArg).map(kannelUrlEncode).join('+');
        break;
      case 'R':
        out += kannelUrlEncode(f.dlrUrl ?? '');
        break;
      case 's':
        if (nextArg < list.length) out += kannelUrlEncode(list[nextArg++]);
        break;
      case 'S':
        // Kannel writes this word as it is, with `*` as `~`.
        if (nextArg < list.length) out += list[nextArg++].replace(/\*/g, '~');
        break;
      case 't': {
        const t = f.time;
        out += `${t.getUTCFullYear()}-${two(t.getUTCMonth() + 1)}-${two(t.getUTCDate())}+${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`;
        break;
      }
      case 'T':
        out += String(Math.floor(f.time.getTime() / 1000));
        break;
      case 'M':
        // The message waiting indicator: never set here, Kannel's undefined.
        out += '-1';
        break;
      case 'B':
      case 'D':
      case 'f':
      case 'o':
      case 'u':
        // Billing info, meta-data, SMSC number, account, UDH: none kept here, and Kannel writes
        // nothing for an empty one.
        break;
      case '%':
        out += '%';
        break;
      default:
        out += `%${code}`;
    }
  }
  return out;
}
