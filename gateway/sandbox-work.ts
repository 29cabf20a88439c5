/**
 * The gateway's side of the sandbox caps (docs/gaps.md#sandbox-caps; kernel/sandbox-caps.ts): a
 * request made with a sandbox credential is told to the kernel while it runs, so the creates it
 * asks are held to the organisation's record cap; and the operations the sandbox policy names as
 * memory-heavy (their cost grows with their input or with the records they read: imports,
 * batches, exports, a run's payslips) run at most `per_organisation` at once for one
 * organisation and `per_node` at once for every sandbox organisation together. A request past
 * either is refused 429 `sandbox_work_limit_reached` with Retry-After before anything runs.
 *
 * The concurrency is counted per node: what it protects is the node's memory, and a request's work
 * runs on the node it reached. Each operation's input is already bounded (the body cap, its rows
 * limit), so the memory such work holds on a node is bounded by these figures times that.
 */
import { ApiError, type LoadedSandboxPolicy, type RouteDef, type SandboxCaps, type SandboxUpFront } from '../kernel/index.ts';
import type { Figure } from '../runtime/index.ts';

/** A refusal and the headers its response carries. */
export interface WorkRefusal {
  error: ApiError;
  headers: Record<string, string>;
}

/** What a sandbox request holds while it runs, for `end`: nothing (a read), the caps told, and a heavy-work slot. */
export const HOLDS_NOTHING = 0;
const HOLDS_CAPS = 1;
const HOLDS_SLOT = 2;
export type Held = number;

export class SandboxWork {
  /** The routes the policy names, found once: a request then costs a set lookup, not a string. */
  private readonly heavy: ReadonlySet<RouteDef>;
  /** The routes whose records are counted before they run (the policy's counted_up_front). */
  private readonly upFront = new Map<RouteDef, SandboxUpFront>();
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly refused = { organisation: 0, node: 0 };
  private readonly policy: LoadedSandboxPolicy;

  constructor(
    private readonly caps: SandboxCaps,
    routes: readonly RouteDef[],
  ) {
    this.policy = caps.policy;
    const declared = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const op of this.policy.pack.heavy_work.operations) {
      // a pack naming an operation no route declares would cap nothing where it meant to
      if (!declared.has(op)) throw new Error(`sandbox policy ${this.policy.pack.version}: heavy_work names ${op}, which no route declares`);
    }
    const named = new Set(this.policy.pack.heavy_work.operations);
    this.heavy = new Set(routes.filter((r) => named.has(`${r.method} ${r.path}`)));
    const counted = this.policy.pack.counted_up_front ?? {};
    for (const op of Object.keys(counted)) {
      if (!declared.has(op)) throw new Error(`sandbox policy ${this.policy.pack.version}: counted_up_front names ${op}, which no route declares`);
    }
    for (const r of routes) {
      const u = counted[`${r.method} ${r.path}`];
      if (u !== undefined) this.upFront.set(r, u);
    }
  }

  /**
   * Before a sandbox request's handler: the refusal of one whose records, counted from its body,
   * would pass the organisation's cap (nothing is made); otherwise nothing, and any other request
   * is decided at its first create. In a cluster this node first takes slots of the budget for
   * what the request makes (kernel/sandbox-budget.ts), the only case that waits.
   */
  admit(def: RouteDef, requestId: string, body: unknown): Promise<ApiError | undefined> | ApiError | undefined {
    const u = this.upFront.get(def);
    const records = u === undefined ? undefined : u.fixed + u.per_row * rowsOf(u, body);
    const slots = this.caps.prepare(requestId, records);
    if (slots !== undefined) return slots.then(() => this.decide(requestId, records));
    return this.decide(requestId, records);
  }

  private decide(requestId: string, records: number | undefined): ApiError | undefined {
    if (records === undefined) return undefined;
    const why = this.caps.admit(requestId, records);
    return why === undefined ? undefined : new ApiError('sandbox_record_limit_reached', why);
  }

  /** Whether `def` is memory-heavy work under the policy. */
  isHeavy(def: RouteDef): boolean {
    return this.heavy.has(def);
  }

  /**
   * A sandbox request begins: a refusal when it is heavy work past a cap; otherwise what `end`
   * takes when it is answered (what it holds).
   */
  begin(def: RouteDef, org: string, requestId: string, writes: boolean): WorkRefusal | Held {
    let held: Held = HOLDS_NOTHING;
    if (this.heavy.has(def)) {
      const w = this.policy.pack.heavy_work;
      const mine = this.running.get(org) ?? 0;
      if (mine >= w.per_organisation) return this.refusal('organisation', `this organisation runs ${mine} memory-heavy operations at once, the most its sandbox policy (${this.policy.pack.version}) allows`);
      if (this.total >= w.per_node) return this.refusal('node', `this node runs ${this.total} memory-heavy operations of sandbox organisations at once, the most the sandbox policy (${this.policy.pack.version}) allows`);
      this.running.set(org, mine + 1);
      this.total++;
      held = HOLDS_SLOT;
    }
    if (writes) {
      this.caps.began(requestId, org);
      held |= HOLDS_CAPS;
    }
    return held;
  }

  end(org: string, requestId: string, held: Held): void {
    if (held & HOLDS_CAPS) this.caps.ended(requestId);
    if (!(held & HOLDS_SLOT)) return;
    this.total--;
    const left = (this.running.get(org) ?? 1) - 1;
    if (left === 0) this.running.delete(org);
    else this.running.set(org, left);
  }

  /** For the metrics (docs/gaps.md#metrics), read at a scrape. */
  figures(): Figure[] {
    const refused = 'Memory-heavy operations of sandbox organisations refused on this node, by the cap reached (the organisation\'s share or the node\'s).';
    return [
      { name: 'platform_sandbox_heavy_work_running', help: 'Memory-heavy operations of sandbox organisations running on this node now.', type: 'gauge', value: this.total },
      { name: 'platform_sandbox_heavy_work_refused_total', help: refused, type: 'counter', labels: { cap: 'organisation' }, value: this.refused.organisation },
      { name: 'platform_sandbox_heavy_work_refused_total', help: refused, type: 'counter', labels: { cap: 'node' }, value: this.refused.node },
    ];
  }

  private refusal(cap: 'organisation' | 'node', why: string): WorkRefusal {
    this.refused[cap]++;
    const seconds = this.policy.pack.heavy_work.retry_after_seconds;
    return {
      error: new ApiError('sandbox_work_limit_reached', `Not started: ${why}. Send again in ${seconds} s, once one has finished.`, { retryable: true }),
      headers: { 'retry-after': String(seconds) },
    };
  }
}

/** The rows of a request body as the policy names them: an array's length, or a CSV's data lines. */
function rowsOf(u: SandboxUpFront, body: unknown): number {
  const b = (body ?? {}) as Record<string, unknown>;
  const rows = u.rows === undefined ? undefined : b[u.rows];
  if (Array.isArray(rows)) return rows.length;
  const csv = u.csv === undefined ? undefined : b[u.csv];
  if (typeof csv !== 'string') return 0;
  let lines = 0;
  for (const line of csv.split('\n')) if (line.trim() !== '') lines++;
  return Math.max(0, lines - 1);
}
