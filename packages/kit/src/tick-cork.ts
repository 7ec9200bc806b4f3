import type { Corkable } from './bus/turn-cork';

/**
 * Corks a socket until the next tick, so the writes of this turn leave in one system call instead
 * of one each (on loopback each also runs the receiver's TCP processing). The uncork comes after
 * this turn's promise reactions: a PDU written in a reaction still joins the same write.
 */
export class TickCork {
  private corked: Corkable | undefined;

  hold(socket: Corkable): void {
    if (this.corked !== undefined) return;
    this.corked = socket;
    socket.cork();
    process.nextTick(() => {
      this.corked = undefined;
      socket.uncork();
    });
  }
}
