/**
 * Early refusals held for a moment (docs/gaps.md#gateway "Rate limits"): a credential refused from
 * its request's head alone (rate-limits.ts RefusedCredentials) gets its 429 only after a short
 * hold, with its connection's reading paused meanwhile. A client waits for an answer before it
 * sends again on a connection (HTTP/1.1 without pipelining; a pipelining one is not read while
 * paused), so a flood on N connections is slowed to N requests per hold at the cost of a timer
 * each, and the event loop it was filling serves everyone else. The answer is the same 429 with
 * the time left to wait; nothing is held while the server closes, and at most MAX_HELD at once,
 * beyond which refusals are answered at once as before.
 */

/** The part of a uWS HttpResponse a hold uses: its socket's reading paused and resumed. */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/** Refusals held at once, over all connections; past it a refusal is answered at once. */
export const MAX_HELD = 4096;
/** The hold: long enough to slow a flood to a trickle, short enough that a client that stops learns why soon. */
export const HOLD_MAX_MS = 1000;

export class Holds {
  private readonly held = new Set<() => void>();

  get size(): number {
    return this.held.size;
  }

  /** Holds `answer` for `ms` with `res` paused; false when it cannot be held (then answer at once). */
  hold(ms: number, res: Pausable, answer: () => void): boolean {
    if (!(ms > 0) || this.held.size >= MAX_HELD) return false;
    try {
      res.pause();
    } catch {
      return false; // the connection is gone: nothing to hold
    }
    const release = () => {
      clearTimeout(timer);
      if (!this.held.delete(release)) return;
      try {
        res.resume();
      } catch {
        // the client left while held: its answer is dropped by the exchange
      }
      answer();
    };
    const timer = setTimeout(release, Math.min(ms, HOLD_MAX_MS));
    this.held.add(release);
    return true;
  }

  /** Answers every held refusal now (a graceful close). */
  releaseAll(): void {
    for (const release of [...this.held]) release();
  }
}
