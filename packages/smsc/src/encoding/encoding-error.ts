/** Content that cannot be sent as asked: the gateway turns it into a 400 naming the field. */
export class EncodingError extends Error {
  override name = 'EncodingError';
}
