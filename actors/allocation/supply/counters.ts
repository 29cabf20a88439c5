/**
 * Heartbeat counters of this node (docs/gaps.md#console): per organisation, what the node's
 * heartbeat path (REST and socket alike) received, accepted and refused since the node started,
 * read with GET /v1/allocation/counters. A load tool compares its own count with them; in a
 * cluster each node counts the batches it ingested, so the organisation's total is the sum over
 * the nodes. In memory only: a restart starts again from zero (`since` says when).
 */
export interface IngestCounts {
  batches: number;
  readings_received: number;
  readings_accepted: number;
  readings_rejected: number;
  /** Refused readings by reason (spec 2.8's six). */
  rejected_by_reason: Record<string, number>;
}

export class IngestCounters {
  private readonly byOrg = new Map<string, IngestCounts>();

  constructor(readonly since: number) {}

  count(org: string, received: number, accepted: number, rejections: readonly { reason: string }[]): void {
    let c = this.byOrg.get(org);
    if (!c) this.byOrg.set(org, (c = { batches: 0, readings_received: 0, readings_accepted: 0, readings_rejected: 0, rejected_by_reason: {} }));
    c.batches++;
    c.readings_received += received;
    c.readings_accepted += accepted;
    c.readings_rejected += rejections.length;
    for (const r of rejections) c.rejected_by_reason[r.reason] = (c.rejected_by_reason[r.reason] ?? 0) + 1;
  }

  of(org: string): IngestCounts {
    const c = this.byOrg.get(org);
    return c ? { ...c, rejected_by_reason: { ...c.rejected_by_reason } } : { batches: 0, readings_received: 0, readings_accepted: 0, readings_rejected: 0, rejected_by_reason: {} };
  }
}
