/**
 * CGI parameters as Jasmin's and Kannel's HTTP interfaces read them: from the query and from a
 * form body, percent-decoded to octets (Kannel decodes text by its `charset` parameter, so octets
 * and not a string), the first value of a name winning as in both gateways.
 */
export type CgiParams = Map<string, Buffer>;

/** More than this many parameters is no client of either gateway. */
const MAX_PARAMS = 64;

function hexValue(octet: number): number {
  if (octet >= 0x30 && octet <= 0x39) return octet - 0x30;
  const lower = octet | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** `+` is a space and `%XX` an octet; a `%` not followed by two hex digits stays as it is. */
export function percentDecode(octets: Buffer): Buffer {
  const out = Buffer.allocUnsafe(octets.length);
  let n = 0;
  for (let i = 0; i < octets.length; i++) {
    const o = octets[i];
    if (o === 0x2b) out[n++] = 0x20;
    else if (o === 0x25 && i + 2 < octets.length) {
      const hi = hexValue(octets[i + 1]);
      const lo = hexValue(octets[i + 2]);
      if (hi < 0 || lo < 0) out[n++] = o;
      else {
        out[n++] = hi * 16 + lo;
        i += 2;
      }
    } else out[n++] = o;
  }
  return out.subarray(0, n);
}

/** Adds `a=b&c=d` to `params`, keeping a name's first value. Returns false past MAX_PARAMS. */
export function addForm(params: CgiParams, form: Buffer): boolean {
  let start = 0;
  while (start <= form.length) {
    let end = form.indexOf(0x26, start);
    if (end < 0) end = form.length;
    if (end > start) {
      const pair = form.subarray(start, end);
      const eq = pair.indexOf(0x3d);
      const name = percentDecode(eq < 0 ? pair : pair.subarray(0, eq)).toString('utf8');
      const value = eq < 0 ? Buffer.alloc(0) : percentDecode(pair.subarray(eq + 1));
      if (!params.has(name)) {
        if (params.size >= MAX_PARAMS) return false;
        params.set(name, value);
      }
    }
    start = end + 1;
  }
  return true;
}

/** The parameters of a request's query (the octets of its URL after `?`). */
export function queryParams(url: string | undefined): CgiParams | undefined {
  const params: CgiParams = new Map();
  const at = url?.indexOf('?') ?? -1;
  if (url !== undefined && at >= 0 && !addForm(params, Buffer.from(url.slice(at + 1), 'latin1')))
    return undefined;
  return params;
}

/** A parameter as text (UTF-8), or undefined when absent. */
export function textParam(params: CgiParams, name: string): string | undefined {
  return params.get(name)?.toString('utf8');
}
