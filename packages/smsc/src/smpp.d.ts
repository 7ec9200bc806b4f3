// The npm `smpp` package ships no types (docs/architecture.md § SMPP); this declares only what we
// use.
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export interface PduFields {
    [field: string]: unknown;
  }

  export class PDU {
    constructor(command: string, options?: PduFields);
    static fromBuffer(buffer: Buffer): PDU | false;
    /** Reads a PDU's command_length off the stream; false while fewer than 4 octets wait. */
    static commandLength(stream: NodeJS.ReadableStream): number | false;
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(options?: PduFields): PDU;
  }

  /** What Session.send asks of a PDU it writes (SubmitSmPdu encodes its own). */
  export interface OutgoingPdu {
    sequence_number: number;
    isResponse(): boolean;
    toBuffer(): Buffer;
  }

  export class Session extends EventEmitter {
    socket: Socket;
    /** Response callbacks by sequence number; we remove ours when a response timed out. */
    _callbacks: Record<number, (pdu: PDU) => void>;
    send(
      pdu: PDU | OutgoingPdu,
      responseCallback?: (pdu: PDU) => void,
      sendCallback?: (pdu: PDU) => void,
    ): boolean;
    bind_transceiver(options: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    bind_transmitter(options: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    bind_receiver(options: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    unbind(options?: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    deliver_sm(options: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    submit_sm(options: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    enquire_link(options?: PduFields, responseCallback?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    /** Stops taking PDUs from the socket (it is then read no more, so TCP pushes back). */
    pause(): void;
    resume(): void;
  }

  export class Server extends NetServer {
    sessions: Session[];
  }

  export function connect(
    /** With `ssmpp:` the whole object goes to tls.connect (ca, servername, rejectUnauthorized). */
    options: {
      url: string;
      auto_enquire_link_period?: number;
      ca?: string;
      servername?: string;
      rejectUnauthorized?: boolean;
    },
    listener?: () => void,
  ): Session;
  export function createServer(
    options: Record<string, unknown>,
    listener: (session: Session) => void,
  ): Server;

  export const errors: Record<string, number>;
  /** The commands node-smpp knows, by name (a response is `<command>_resp`). */
  export const commands: Record<string, unknown>;
  /** The optional parameters node-smpp knows, by name: their tag and their value's codec. */
  export const tlvs: Record<
    string,
    {
      id: number;
      multiple?: boolean;
      type: {
        size(value: unknown): number;
        write(value: unknown, buffer: Buffer, at: number): void;
      };
    }
  >;
  export const filters: { message: { decode: (value: unknown, skipUdh?: boolean) => unknown } };
}
