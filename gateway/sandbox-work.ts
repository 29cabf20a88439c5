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
import { ApiError, type LoadedSandboxPolicy, type RouteDef, type SandboxCaps } from '../kernel/index.ts';
import type { Figure } from '../runtime/index.ts';

/** A refusal and the headers its response carries. */
export interface WorkRefusal {
  error: ApiError;
  headers: Record<string, string>;
}

export class SandboxWork {
  /** The routes the policy names, found once: a request then costs a set lookup, not a string. */
  private readonly heavy: ReadonlySet<RouteDef>;
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
  }

  /** Whether `def` is memory-heavy work under the policy. */
  isHeavy(def: RouteDef): boolean {
    return this.heavy.has(def);
  }

  /**
   * A sandbox request begins: a refusal when it is heavy work past a cap; otherwise what `end`
   * takes when it is answered (whether it took a slot).
   */
  begin(def: RouteDef, org: string, requestId: string, writes: boolean): WorkRefusal | boolean {
    let slot = false;
    if (this.heavy.has(def)) {
      const w = this.policy.pack.heavy_work;
      const mine = this.running.get(org) ?? 0;
      if (mine >= w.per_organisation) return this.refusal('organisation', `this organisation runs ${mine} memory-heavy operations at once, the most its sandbox policy (${this.policy.pack.version}) allows`);
      if (this.total >= w.per_node) return this.refusal('node', `this node runs ${this.total} memory-heavy operations of sandbox organisations at once, the most the sandbox policy (${this.policy.pack.version}) allows`);
      this.running.set(org, mine + 1);
      this.total++;
      slot = true;
    }
    if (writes) this.caps.began(requestId, org);
    return slot;
  }

  end(org: string, requestId: string, slot: boolean): void {
    this.caps.ended(requestId);
    if (!slot) return;
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
