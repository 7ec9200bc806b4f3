import { TokenType, type ParsedTokenInfo } from '@streamparser/json';
import {
  BatchConfigSchema,
  BatchRequestSchema,
  FIELD_ALIASES,
  IGNORED_FIELDS,
  messageParams,
} from '@smsgw/contracts';

/**
 * Where a value sits in a batch and what it may hold. Only the containers a batch has are kept:
 * anything else a client nests is left out while it streams, so a body costs memory for what the
 * batch is, not for what was sent beside it.
 */
interface Shape {
  /** The container this place may hold; any other container here is kept empty. */
  container?: 'object' | 'array';
  /** Of an object: the shape of each field it may have (other fields' values become null). */
  fields?: Readonly<Record<string, Shape>>;
  /** Of an array: the shape of its items. */
  items?: Shape;
  /** Of an array: how many recipients its item at this index adds at least. */
  counts?: (index: number) => number;
}

const SCALAR: Shape = {};

/**
 * Items kept of an array that neither lists messages nor recipients: more than any field allows,
 * so validation still refuses a longer one, while the rest is never held.
 */
const KEPT_ITEMS = 64;

/** A field name kept for validation to name; longer ones are cut (no field is this long). */
const KEPT_NAME = 64;

function objectOf(names: readonly string[], shapeOf: (name: string) => Shape): Shape {
  const fields: Record<string, Shape> = {};
  for (const name of names) fields[name] = shapeOf(name);
  return { container: 'object', fields };
}

const LIST: Shape = { container: 'array', items: SCALAR };

/**
 * Message parameters in both spellings; `tags` and `to` (in `globals`) are lists, `custom_tlvs` a
 * list of lists.
 */
function paramShape(name: string): Shape {
  const canonical = FIELD_ALIASES[name] ?? name;
  if (canonical === 'custom_tlvs') return { container: 'array', items: LIST };
  return canonical === 'tags' || canonical === 'to' ? LIST : SCALAR;
}

const PARAM_NAMES = [
  ...Object.keys(messageParams),
  ...Object.keys(FIELD_ALIASES),
  ...Object.keys(IGNORED_FIELDS),
];

/** A message counts once, and each destination of its list after the first once more. */
const MESSAGE: Shape = objectOf(['to', ...PARAM_NAMES], (name) =>
  name === 'to'
    ? { container: 'array', items: SCALAR, counts: (index) => (index === 0 ? 0 : 1) }
    : paramShape(name),
);

const ROOT_FIELDS: Record<keyof typeof BatchRequestSchema.shape, Shape> = {
  messages: { container: 'array', items: MESSAGE, counts: () => 1 },
  globals: objectOf(['to', ...PARAM_NAMES], paramShape),
  batch_config: objectOf(Object.keys(BatchConfigSchema.shape), () => SCALAR),
};

export const BATCH_SHAPE: Shape = { container: 'object', fields: ROOT_FIELDS };

type Token = Omit<ParsedTokenInfo, 'offset'>;

interface Frame {
  shape: Shape;
  kind: 'object' | 'array';
  /** Object: the shape of the value after the current key (undefined: a field it may not have). */
  next: Shape | undefined;
  /** Object: true when the next string is a key. */
  atKey: boolean;
  /** Array: items seen. */
  index: number;
  /** Array: a comma held until the item after it is known to be kept. */
  comma: Token | undefined;
}

const NULL_TOKEN: Token = { token: TokenType.NULL, value: null };
const OPEN: Record<'object' | 'array', Token> = {
  object: { token: TokenType.LEFT_BRACE, value: '{' },
  array: { token: TokenType.LEFT_BRACKET, value: '[' },
};
const CLOSE: Record<'object' | 'array', Token> = {
  object: { token: TokenType.RIGHT_BRACE, value: '}' },
  array: { token: TokenType.RIGHT_BRACKET, value: ']' },
};

/**
 * Sits between the tokenizer and the parser of a batch: passes on the tokens of what the batch
 * may hold, turns a field it may not have into `"field": null` (validation still names it), keeps
 * a container where a value belongs empty, drops array items past KEPT_ITEMS, and counts the
 * recipients as their tokens arrive. The syntax of a part left out is not checked: such a batch
 * is refused by validation anyway.
 */
export class BatchShapeFilter {
  private readonly stack: Frame[] = [];
  /** Depth inside a container being left out; 0 when tokens pass. */
  private skipping = 0;
  private started = false;
  recipients = 0;

  constructor(private readonly emit: (token: Token) => void) {}

  write(token: Token): void {
    if (this.skipping > 0) {
      this.skip(token);
      return;
    }
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      if (this.started) {
        this.emit(token);
        return;
      }
      this.started = true;
      this.value(token, BATCH_SHAPE);
      return;
    }
    if (top.kind === 'object') this.inObject(top, token);
    else this.inArray(top, token);
  }

  private inObject(frame: Frame, token: Token): void {
    switch (token.token) {
      case TokenType.STRING:
        if (frame.atKey) {
          frame.atKey = false;
          const key = String(token.value);
          frame.next = Object.hasOwn(frame.shape.fields ?? {}, key)
            ? frame.shape.fields?.[key]
            : undefined;
          this.emit(key.length > KEPT_NAME ? { ...token, value: key.slice(0, KEPT_NAME) } : token);
          return;
        }
        break;
      case TokenType.COMMA:
        frame.atKey = true;
        this.emit(token);
        return;
      case TokenType.COLON:
        this.emit(token);
        return;
      case TokenType.RIGHT_BRACE:
        this.stack.pop();
        this.emit(token);
        return;
      default:
        break;
    }
    const shape = frame.next;
    frame.next = undefined;
    if (shape === undefined) {
      this.emit(NULL_TOKEN);
      if (isOpening(token)) this.skipping = 1;
      return;
    }
    this.value(token, shape);
  }

  private inArray(frame: Frame, token: Token): void {
    switch (token.token) {
      case TokenType.COMMA:
        frame.comma = token;
        return;
      case TokenType.RIGHT_BRACKET:
        this.flushComma(frame);
        this.stack.pop();
        this.emit(token);
        return;
      default:
        break;
    }
    const index = frame.index++;
    if (frame.shape.counts) this.recipients += frame.shape.counts(index);
    else if (index >= KEPT_ITEMS) {
      frame.comma = undefined;
      if (isOpening(token)) this.skipping = 1;
      return;
    }
    this.flushComma(frame);
    this.value(token, frame.shape.items ?? SCALAR);
  }

  /** The first token of a value at a place of this shape. */
  private value(token: Token, shape: Shape): void {
    const kind = opened(token);
    if (kind === undefined) {
      this.emit(token);
      return;
    }
    if (shape.container !== kind) {
      // Kept as an empty container of its kind, so validation names the type it got.
      this.emit(OPEN[kind]);
      this.emit(CLOSE[kind]);
      this.skipping = 1;
      return;
    }
    this.stack.push({ shape, kind, next: undefined, atKey: true, index: 0, comma: undefined });
    this.emit(token);
  }

  private skip(token: Token): void {
    if (isOpening(token)) this.skipping++;
    else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET)
      this.skipping--;
  }

  private flushComma(frame: Frame): void {
    if (frame.comma) this.emit(frame.comma);
    frame.comma = undefined;
  }
}

function opened(token: Token): 'object' | 'array' | undefined {
  if (token.token === TokenType.LEFT_BRACE) return 'object';
  if (token.token === TokenType.LEFT_BRACKET) return 'array';
  return undefined;
}

function isOpening(token: Token): boolean {
  return opened(token) !== undefined;
}
