/**
 * What the runtime's background senders (reminders, reactions) need of the actor system: one way
 * to send a command. They depend on this, not on ActorSystem, so the system can own them without
 * a cycle between the files.
 */
import type { AnyActorDef } from './actor.ts';

export interface AskOptions {
  /** Organisation of the caller; compared with the actor's (spec 5.5). */
  org: string;
  requestId?: string;
  principal?: string;
  /** A command with a dedupe id seen before has no second effect (reactions, reminders). */
  dedupeId?: string;
  /** 'system' for reminders and reactions: taken before user commands. */
  lane?: 'user' | 'system';
  /**
   * The caller does not read the reply (reminders, reactions, background reports): no view is
   * made for it and the ask resolves with undefined. A decision's explicit reply is still given.
   */
  noReply?: boolean;
  /**
   * Set by the runtime (ActorSystem.limitCreation), never by a caller: the command is refused with
   * this message when it would create its record; on a record that exists it runs as asked. It
   * travels with an ask forwarded to the node that owns the record, which alone knows whether it
   * exists.
   */
  refuseCreate?: string;
}

/** Sends a command to an actor of a kind (a definition or its name), wherever it lives. */
export interface Asker {
  ask(ref: AnyActorDef | string, id: string, command: string, payload: unknown, opts: AskOptions): Promise<unknown>;
}
