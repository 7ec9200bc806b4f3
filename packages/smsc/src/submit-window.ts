import { SmscError, type SubmitRequest, type Submission } from './smsc-connector';

interface Entry {
  places: number;
  grant: () => void;
  fail: (err: SmscError) => void;
  timer: NodeJS.Timeout;
}

/** What a connector holds: places written and unanswered, and places queued for the window. */
export interface WindowLoad {
  inWindow: number;
  queued: number;
}

/**
 * The one count of a connector's window (the PDUs or requests written and not answered) and its
 * queue of work waiting for places. An entry takes all its places at once, in arrival order, so a
 * group of submits is written together in one turn and a caller's commit on `written` precedes all
 * of it. An entry larger than the window goes alone once the window is empty. An entry that finds
 * the link down each time `waitMs` pass fails with NOT_BOUND.
 */
export class SubmitWindow {
  private used = 0;
  private queuedPlaces = 0;
  private readonly queue: Entry[] = [];
  private readonly roomListeners: (() => void)[] = [];

  constructor(
    readonly size: number,
    private readonly waitMs: number,
    /** Whether places may be granted now (an SMPP session is bound). */
    private readonly isOpen: () => boolean,
  ) {}

  /** Places taken and places queued. */
  load(): WindowLoad {
    return { inWindow: this.used, queued: this.queuedPlaces };
  }

  /** Places free that nothing queued waits for. */
  room(): number {
    return Math.max(0, this.size - this.used - this.queuedPlaces);
  }

  /** Told each time places come free (an answer, a timeout, a failed wait). */
  onRoom(listener: () => void): void {
    this.roomListeners.push(listener);
  }

  /** Resolves once `places` are taken for the caller; rejects when it waited too long. */
  take(places: number): Promise<void> {
    if (places === 0) return Promise.resolve();
    if (this.queue.length === 0 && this.fits(places)) {
      this.used += places;
      return Promise.resolve();
    }
    return new Promise<void>((grant, fail) => {
      const entry: Entry = { places, grant, fail, timer: this.expiry(() => entry) };
      this.queue.push(entry);
      this.queuedPlaces += places;
    });
  }

  /**
   * While the link is open, the places ahead of an entry come back within a response timeout each
   * (answered or timed out), so it waits on; with the link down at the end of `waitMs`, it fails.
   */
  private expiry(entry: () => Entry): NodeJS.Timeout {
    return setTimeout(() => {
      const waiting = entry();
      if (this.isOpen()) {
        waiting.timer = this.expiry(entry);
        return;
      }
      this.drop(waiting);
      waiting.fail(new SmscError('NOT_BOUND', false, 'the link to the SMSC is down'));
      // A large entry leaving the head of the queue may let smaller ones behind it through.
      this.grant();
    }, this.waitMs);
  }

  /** Gives places back: their answers came (or never will). */
  give(places: number): void {
    this.used -= places;
    this.grant();
  }

  /** Grants what waits and fits; called when places free and when the link opens. */
  grant(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0].places)) {
      const next = this.queue.shift()!;
      clearTimeout(next.timer);
      this.queuedPlaces -= next.places;
      this.used += next.places;
      next.grant();
    }
    for (const listener of this.roomListeners) listener();
  }

  /** Fails everything queued (the connector stops). */
  failQueued(err: SmscError): void {
    for (const entry of this.queue.splice(0)) {
      clearTimeout(entry.timer);
      this.queuedPlaces -= entry.places;
      entry.fail(err);
    }
  }

  private fits(places: number): boolean {
    if (!this.isOpen()) return false;
    return this.used + places <= this.size || this.used === 0;
  }

  private drop(entry: Entry): void {
    const at = this.queue.indexOf(entry);
    if (at < 0) return;
    this.queue.splice(at, 1);
    this.queuedPlaces -= entry.places;
  }
}

/**
 * What every connector that owns a SubmitWindow answers the same way: its room, load and room
 * listeners, and a single submit as a group of one.
 */
export abstract class WindowedConnector {
  protected abstract readonly places: SubmitWindow;

  abstract submitAll(requests: readonly SubmitRequest[]): Submission[];

  load(): WindowLoad {
    return this.places.load();
  }

  room(): number {
    return this.places.room();
  }

  onRoom(listener: () => void): void {
    this.places.onRoom(listener);
  }

  submit(request: SubmitRequest): Submission {
    return this.submitAll([request])[0];
  }
}
