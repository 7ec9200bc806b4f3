import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorItem } from '@smsgw/contracts';

/**
 * An error meant for the caller: it becomes the error body of docs/architecture.md § Wire
 * compatibility.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { field?: string; errors?: ErrorItem[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  body(): ErrorBody {
    const detail: ErrorBody['detail'] = { code: this.code, message: this.message };
    if (this.extra.field !== undefined) detail.field = this.extra.field;
    if (this.extra.errors !== undefined) detail.errors = this.extra.errors;
    return { detail };
  }

  static invalid(field: string, message: string): HttpError {
    return new HttpError('INVALID_PARAMETER', `${field}: ${message}`, { field });
  }
  static unauthorized(
    message = 'Authentication credentials were not provided or are wrong',
  ): HttpError {
    // No WWW-Authenticate challenge: a browser would ask for and then cache the credentials,
    // and send them with any request another site makes it send.
    return new HttpError('UNAUTHORIZED', message);
  }
  static notFound(message = 'Not found'): HttpError {
    return new HttpError('NOT_FOUND', message);
  }
}
