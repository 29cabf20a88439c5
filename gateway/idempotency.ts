/**
 * Idempotency (spec 1.9, 8; STYLE "Idempotency is a rule with three outcomes").
 *
 *   same key, same request        -> the first response again (errors included),
 *                                    with Service-Idempotent-Replay: true
 *   same key, another request     -> 400 idempotency_key_reused
 *   same key while the first runs -> wait for it, then replay its response
 *
 * Records live in the platform key-value store under the caller's organisation, so two
 * organisations never see each other's keys and every node of a cluster sees the same record.
 * A finished record is kept 7 days (payroll and payout retries come days later). A 5xx answer
 * (nothing applied, or `outcome_unknown`) is not kept, so the retry runs again; a create's dedupe
 * id (kernel createDedupe) makes the second run land on the first one's record.
 *
 * A request in progress holds a claim: a string `claim <fingerprint> <member> <nonce>` naming the
 * cluster member that runs it (kernel Membership; `-` without one). A waiter or retry that finds
 * the claim of a member that has lapsed (its node died: docs/cluster.md "Idempotency claims")
 * takes it over by compare-and-set, so exactly one survivor executes, within seconds instead of
 * the claim's lease. The claim is a string because compare-and-set compares scalars. Without a
 * membership (embedded: one process) a claim ends only with its lease, as does one written before
 * claims named their member. Over the local stores claims are held in the process's memory apart
 * from the records (Stores.claims): a restart ends every claim, so a retry after a crash runs at
 * once, and a request writes its record to disk, not its claim as well.
 * The request's fingerprint is its method, path and exact body bytes.
 * A secret shown once (an API key, a client secret, a token) is never kept in a record: the
 * pipeline hands over a replay body with those fields set to null (spec 5.2).
 */
import { hash } from 'node:crypto';
import { ApiError, logOf, type Membership, randomSuffix } from '../kernel/index.ts';
import type { KeyValueStore } from '../stores/index.ts';
import { REQUEST_ID_HEADER } from './headers.ts';
import type { WireResponse } from './wire.ts';

export const IDEMPOTENCY_TTL_MS = 7 * 24 * 3600_000;
export const IDEMPOTENCY_LEASE_MS = 60_000;
export const IDEMPOTENCY_KEY_MAX = 255;
/** How often a waiter on another node looks at the record (in-process waiters are woken directly). */
const POLL_MS = 5;
/** A waiter gives up after this many looks (about 30 s of polling) and answers a retryable 503. */
const WAIT_LIMIT_LOOKS = 6000;

type Done = { state: 'done'; fp: string; status: number; headers: Record<string, string>; body: string; base64?: true };
/** As kept: a claim (string), a finished record, or a claim written before claims named their member. */
type Stored = string | Done | { state: 'pending'; fp: string };
type Held = Done | { state: 'pending'; fp: string; member?: string };

/**
 * A fresh claim for one execution; the nonce tells apart two claims of one member on one key. It is
 * 12 base62 symbols from the kernel's pooled randomness (71 bits): a crypto call per request cost a
 * tenth of a no-op POST's server time (bench/scenarios/gateway.ts).
 */
const claimOf = (fp: string, member: string | undefined): string => `claim ${fp} ${member ?? '-'} ${randomSuffix(12)}`;

function heldOf(rec: Stored): Held {
  if (typeof rec !== 'string') return rec;
  const [, fp, member] = rec.split(' ');
  return { state: 'pending', fp, member: member === '-' ? undefined : member };
}

const reused = () => new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request.');

/** The first response again for the same request (the caller adds this request's id and the replay header to a copy of the kept headers); refused for another. */
function replayOf(done: Done, fp: string): { response: WireResponse; replay: boolean } {
  if (done.fp !== fp) throw reused();
  return { response: { status: done.status, headers: done.headers, body: done.base64 ? Buffer.from(done.body, 'base64') : done.body }, replay: true };
}

/** What one execution hands the idempotency layer: the answer to send now, and what to keep for replays. */
export interface Executed {
  response: WireResponse;
  /** What a replay sends instead of `response.body`: the same JSON with shown-once secrets nulled. */
  replayBody?: string;
}

export function checkKey(key: string | undefined, required: boolean): string | undefined {
  if (key === undefined || key === '') {
    if (required) throw new ApiError('idempotency_key_missing', 'This request requires an Idempotency-Key header (spec 8).');
    return undefined;
  }
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError('idempotency_key_invalid', `The Idempotency-Key is ${key.length} characters; at most ${IDEMPOTENCY_KEY_MAX} are allowed.`);
  }
  if (!/^[\x21-\x7e]+$/.test(key)) throw new ApiError('idempotency_key_invalid', 'The Idempotency-Key must be visible ASCII characters.');
  return key;
}

/** Where a fingerprint's input is laid out when it fits: the hot path allocates no buffer for it. */
const scratch = Buffer.allocUnsafe(16 * 1024);

export function fingerprint(method: string, path: string, body: Buffer): string {
  const head = `${method} ${path}\n`;
  if (head.length * 3 + body.length > scratch.length) return hash('sha256', Buffer.concat([Buffer.from(head), body]), 'base64url');
  const n = scratch.write(head, 0, 'utf8');
  body.copy(scratch, n);
  return hash('sha256', scratch.subarray(0, n + body.length), 'base64url');
}

/** The headers of most answers, kept once for every record that has exactly these. */
const JSON_ONLY: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/**
 * The headers a record keeps: the answer's, without its request id (a replay carries its own).
 */
function keptHeaders(headers: Record<string, string>): Record<string, string> {
  let n = 0;
  let json = false;
  for (const k in headers) {
    if (k === REQUEST_ID_HEADER) continue;
    n++;
    json = k === 'content-type' && headers[k] === 'application/json';
  }
  if (n === 1 && json) return JSON_ONLY;
  const kept: Record<string, string> = {};
  for (const k in headers) if (k !== REQUEST_ID_HEADER) kept[k] = headers[k];
  return kept;
}

/** One local execution: `finished` resolves when it ends (made when a waiter first asks). */
interface InFlight {
  finished: Promise<void> | undefined;
  wake: (() => void) | undefined;
}

export class Idempotency {
  /**
   * Local executions in flight, so waiters in this process are woken without polling. The promise a
   * waiter awaits is made by the first waiter: most executions have none.
   */
  private readonly inflight = new Map<string, InFlight>();

  /** Claims live apart from the records (Stores.claims): a record must then be looked for beside the claim. */
  private readonly apart: boolean;

  constructor(
    /** Where finished records are kept (7 days). */
    private readonly kv: KeyValueStore,
    /** Which members are gone, in cluster mode (kernel MEMBERSHIP); none embedded. */
    private readonly membership?: Membership,
    /** Where claims are held: Stores.claims where the stores have one, else beside the records. */
    private readonly claims: KeyValueStore = kv,
  ) {
    this.apart = claims !== kv;
  }

  /**
   * Runs `execute` at most once per (org, key). Returns the response to send and whether it is
   * a replay. `execute` must return a response (errors already mapped), never throw.
   */
  async run(org: string, key: string, fp: string, execute: () => Promise<Executed>): Promise<{ response: WireResponse; replay: boolean }> {
    const k = ['idem', org, key].join(':'); // one flat string: the record's key is kept 7 days (runtime/effects.ts listName)
    const claim = claimOf(fp, this.membership?.member);
    for (let looks = 0; ; looks++) {
      if (await this.claims.setIfAbsent(k, claim, IDEMPOTENCY_LEASE_MS)) {
        if (this.apart) {
          // apart, a claim won says only that nobody runs it now: an execution that ended kept its
          // record first and then let its claim go, so the record is looked for once the claim is held
          const done = await this.kv.get<Done>(k);
          if (done !== undefined) {
            await this.release(k, claim);
            return replayOf(done, fp);
          }
        }
        return { response: await this.execute(k, fp, claim, execute), replay: false };
      }
      const stored = await this.claims.get<Stored>(k);
      if (stored === undefined) continue; // released (a retryable failure), ended with its record kept, or lease ended: look again
      const rec = heldOf(stored);
      if (rec.state === 'done') return replayOf(rec, fp);
      if (rec.fp !== fp) throw reused();
      if (typeof stored === 'string' && rec.member !== undefined && this.membership?.hasLapsed(rec.member)) {
        // Its node is gone: whoever swaps the claim first executes; the others wait on the new claim.
        if (await this.claims.compareAndSet(k, stored, claim, IDEMPOTENCY_LEASE_MS)) return { response: await this.execute(k, fp, claim, execute), replay: false };
        continue;
      }
      if (looks > WAIT_LIMIT_LOOKS) {
        throw new ApiError('overloaded', 'The first request with this Idempotency-Key is still running; retry shortly.', { retryable: true });
      }
      const local = this.inflight.get(k);
      if (local) await (local.finished ??= new Promise<void>((r) => (local.wake = r)));
      else await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async execute(k: string, fp: string, claim: string, execute: () => Promise<Executed>): Promise<WireResponse> {
    const local: InFlight = { finished: undefined, wake: undefined };
    this.inflight.set(k, local);
    try {
      const { response, replayBody } = await execute();
      if (response.status >= 500) {
        await this.release(k, claim);
        return response;
      }
      const body = replayBody ?? response.body;
      const text = typeof body === 'string';
      // Whole literals, one shape each (a spread made the kept record's shape per request).
      const stored: Done = text
        ? { state: 'done', fp, status: response.status, headers: keptHeaders(response.headers), body: body as string }
        : { state: 'done', fp, status: response.status, headers: keptHeaders(response.headers), body: Buffer.from(body).toString('base64'), base64: true };
      try {
        await this.kv.set(k, stored, IDEMPOTENCY_TTL_MS);
        // apart, the claim ends once the record is there to be found (beside it, the record replaced it)
        if (this.apart) await this.release(k, claim);
      } catch (e) {
        // The work is done and its answer is true: it goes out. Without the record a retry runs
        // again, and an area's dedupe id (kernel createDedupe) lands it on the same record.
        logOf('gateway').error('keeping an idempotency record failed', e, { record: k });
        await this.release(k, claim);
      }
      return response;
    } catch (e) {
      await this.release(k, claim);
      throw e;
    } finally {
      this.inflight.delete(k);
      local.wake?.();
    }
  }

  /**
   * Ends this execution's claim, unless a survivor took it over (it then runs on under its own).
   * A store that cannot take the release leaves the claim to end with its lease: the answer in hand
   * still goes out, and says what happened rather than that the release failed.
   */
  private async release(k: string, claim: string): Promise<void> {
    try {
      await this.claims.compareAndSet(k, claim, undefined);
    } catch (e) {
      logOf('gateway').error('releasing an idempotency claim failed', e, { record: k });
    }
  }
}
