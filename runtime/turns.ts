/**
 * Deciding a turn (DESIGN "The runtime"): up to `batchSize` commands from an actor's mailbox,
 * decided and evolved against its state in memory, synchronously; nothing is kept until the turn
 * is committed (commits.ts). Each command's outcome is linked onto the turn, to be delivered once
 * the turn is settled.
 *
 * Checks before decide run in a fixed order: organisation (403 organisation_mismatch), existence
 * (404 not_found unless the command creates), the creation limit (403
 * sandbox_record_limit_reached: a create the kernel's sandbox caps refused), dedupe (a duplicate
 * gets the current view).
 */
import type { CommitEffects, StoredEvent } from '../stores/index.ts';
import type { CommandContext, EventMeta } from './actor.ts';
import type { Cell } from './cells.ts';
import { seen } from './dedupe.ts';
import { indexOps, timerOps } from './effects.ts';
import { ApiError, isApiError, shownId, timeOrderedId } from '../kernel/base/index.ts';
import type { Envelope } from './mailbox.ts';

/** A decided turn awaiting its commit; it is its own journal append item (stream, expected version, events). */
export interface Turn {
  cell: Cell;
  stream: string;
  /** The version before the turn. */
  expectedVersion: number;
  /** The events staged by the turn. */
  events: StoredEvent[];
  beforeState: unknown;
  beforeOrg: string | undefined;
  state: unknown;
  version: number;
  org: string | undefined;
  /** Dedupe ids applied in this turn (allocated on first use). */
  dedupe: string[] | undefined;
  /** The same ids as a set, made once the turn has applied more than DEDUPE_SCAN of them. */
  dedupeSet?: Set<string>;
  /** List and timer changes handed to a journal that writes them with the events (Journal.writesEffects). */
  effects?: CommitEffects;
  /** The envelopes taken, in order, linked through `next`, each with its outcome. */
  first: Envelope | undefined;
  last: Envelope | undefined;
  taken: number;
}

/**
 * Dedupe ids a turn looks for in its list rather than a set. A turn takes up to `batchSize`
 * commands, and a mailbox of notices or reactions to one actor brings hundreds, each with its own
 * id: a scan of the list per command made such a turn quadratic in its commands.
 */
const DEDUPE_SCAN = 8;

/** Whether `id` was applied earlier in this turn. */
function appliedInTurn(turn: Turn, id: string): boolean {
  const ids = turn.dedupe;
  if (ids === undefined) return false;
  if (ids.length <= DEDUPE_SCAN) return ids.includes(id);
  turn.dedupeSet ??= new Set(ids);
  return turn.dedupeSet.has(id);
}

function applied(turn: Turn, id: string): void {
  (turn.dedupe ??= []).push(id);
  turn.dedupeSet?.add(id);
}

function outcome(turn: Turn, env: Envelope, ok: boolean, value: unknown): void {
  env.ok = ok;
  env.value = value;
  if (turn.last) turn.last.next = env;
  else turn.first = env;
  turn.last = env;
  turn.taken++;
}

/** Delivers every outcome of a turn to its caller. */
export function deliver(turn: Turn): void {
  for (let o = turn.first; o; ) {
    const next = o.next;
    o.next = undefined;
    if (o.ok) o.resolve(o.value);
    else o.reject(o.value);
    o = next;
  }
}

/**
 * A committed event as one literal of its exact fields (absent ones left out, as the stores and
 * the feed have always read them). Adding the optional fields after the literal gave every event
 * an out-of-object property array, an object more per event for the collector to copy while the
 * journal keeps it.
 */
function storedEvent(version: number, id: string, type: string, data: unknown, at: number, org: string, requestId: string | undefined, principal: string | undefined, dedupe: string | undefined): StoredEvent {
  if (dedupe === undefined) {
    if (principal === undefined) return requestId === undefined ? { version, id, type, data, at, org } : { version, id, type, data, at, org, requestId };
    return requestId === undefined ? { version, id, type, data, at, org, principal } : { version, id, type, data, at, org, requestId, principal };
  }
  if (principal === undefined) return requestId === undefined ? { version, id, type, data, at, org, dedupe } : { version, id, type, data, at, org, requestId, dedupe };
  return requestId === undefined ? { version, id, type, data, at, org, principal, dedupe } : { version, id, type, data, at, org, requestId, principal, dedupe };
}

/**
 * Decide up to batchSize commands against the actor's state in memory; nothing is kept yet.
 * `ctx` and `meta` are the caller's, the same two objects for every turn (below).
 */
export function decideTurn(cell: Cell, now: number, ctx: CommandContext, meta: EventMeta, batchSize: number, log: (msg: string, err?: unknown) => void): Turn {
  const { def, id } = cell;
  let state = cell.state;
  let version = cell.version;
  let org = cell.org;
  const staged: StoredEvent[] = [];
  const turn: Turn = {
    cell, stream: cell.key, expectedVersion: version, events: staged, beforeState: state, beforeOrg: org,
    state, version, org, dedupe: undefined, effects: undefined, first: undefined, last: undefined, taken: 0,
  };
  // One context and one event meta for every command, updated in place: decide and evolve are
  // synchronous and must not keep them.
  ctx.now = now;
  ctx.id = id;
  meta.at = now;

  for (let n = 0; n < batchSize; n++) {
    const env = cell.mailbox?.take();
    if (!env) break;
    if (org !== undefined && env.org !== org) {
      outcome(turn, env, false, new ApiError('organisation_mismatch', `${id} belongs to another organisation.`));
      continue;
    }
    const exists = org !== undefined;
    if (!exists && !def.creates.includes(env.command)) {
      outcome(turn, env, false, new ApiError('not_found', `No ${def.kind} with id ${shownId(id)}.`));
      continue;
    }
    if (!exists && env.refuseCreate !== undefined) {
      outcome(turn, env, false, new ApiError('sandbox_record_limit_reached', env.refuseCreate));
      continue;
    }
    if (env.dedupeId !== undefined && (seen(cell.dedupe, env.dedupeId) || appliedInTurn(turn, env.dedupeId))) {
      outcome(turn, env, true, exists && !env.noReply ? def.view(state) : undefined);
      continue;
    }
    const base = exists ? state : def.initial(id, env.org);
    ctx.org = env.org;
    ctx.version = version;
    ctx.requestId = env.requestId;
    ctx.principal = env.principal;
    const mark = staged.length;
    try {
      const decision = def.decide[env.command](base, env.payload, ctx);
      const events = Array.isArray(decision) ? decision : decision.events;
      let next = base;
      for (let k = 0; k < events.length; k++) {
        const ev = events[k];
        const stored = storedEvent(version + 1 + k, timeOrderedId('evt_', now), ev.type, ev, now, env.org, env.requestId, env.principal, env.dedupeId);
        meta.version = stored.version;
        meta.eventId = stored.id;
        meta.org = env.org;
        next = def.evolve(next, ev, meta);
        staged.push(stored);
      }
      if (events.length > 0) {
        state = next;
        version += events.length;
        org ??= env.org;
        if (env.dedupeId !== undefined) applied(turn, env.dedupeId);
      }
      const reply = Array.isArray(decision) || decision.reply === undefined ? (org !== undefined && !env.noReply ? def.view(state) : undefined) : decision.reply;
      outcome(turn, env, true, reply);
    } catch (e) {
      staged.length = mark;
      if (!isApiError(e)) log(`${def.kind}.${env.command} on ${id} threw`, e);
      outcome(turn, env, false, isApiError(e) ? e : new ApiError('internal_error', 'The command failed unexpectedly; nothing was applied.'));
    }
  }
  turn.state = state;
  turn.version = version;
  turn.org = org;
  return turn;
}

/** A turn's list and timer changes, from the state before it to the state after. */
export function commitEffects(turn: Turn): CommitEffects {
  const { def, id } = turn.cell;
  const existed = turn.beforeOrg !== undefined;
  const org = turn.org!;
  const timers = timerOps(def, id, org, turn.beforeState, turn.state, existed);
  return { indexOps: indexOps(def, id, org, turn.beforeState, turn.state, existed), reminderPuts: timers.put, reminderCancels: timers.cancel };
}
