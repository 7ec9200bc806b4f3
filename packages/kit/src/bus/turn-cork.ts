/** The part of a socket this needs (net.Socket has it). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/**
 * Gathers the frames amqplib writes in one turn of the event loop into one socket write. amqplib
 * writes each frame with its own write(): a system call each, and on loopback each also runs the
 * receiver's TCP processing; twenty publishes answered by one group commit cost twenty of them.
 *
 * amqplib's writer runs in a setImmediate that it schedules from a nextTick (the channel stream's
 * 'readable'), so `hold()` called right after a publish schedules the uncork the same way and it
 * runs just after those writes. If the writer runs later (socket full, waiting for 'drain'), the
 * uncork only comes first: nothing is held back beyond this turn.
 */
export class TurnCork {
  private corked: Corkable | undefined;

  hold(socket: Corkable | undefined): void {
    if (this.corked !== undefined || socket === undefined) return;
    this.corked = socket;
    socket.cork();
    process.nextTick(() =>
      setImmediate(() => {
        this.corked = undefined;
        socket.uncork();
      }),
    );
  }
}
