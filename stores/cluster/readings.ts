/**
 * Heartbeat readings on a JetStream stream with a max age: one message per appended batch on the
 * worker's subject. JetStream ages messages out by wall time; the retention window is also applied
 * on the injected clock when reading, and the per-worker cap by recorded time, as the memory store
 * does, so both families answer alike.
 */
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { pack, unpack } from './codec.ts';
import type { Now, ReadingStore, StoredReading } from '../types.ts';
import { ensure } from './journal.ts';
import { subjectOf } from './names.ts';

/** Kept beyond the retention window by wall time, so a clock ahead of the server loses nothing. */
const AGE_GRACE_MS = 3600_000;

export interface ReadingNames {
  stream: string;
  prefix: string;
}

export class JetStreamReadings implements ReadingStore {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: ReadingNames,
    private readonly now: Now,
    private readonly retentionMs: number,
    private readonly maxPerWorker = 20_000,
    /** Direct gets may be answered by a lagging replica; with replicas > 1 ask the leader. */
    private readonly direct = true,
  ) {}

  static async ensureStream(jsm: JetStreamManager, names: ReadingNames, retentionMs: number, replicas: number, maxPerWorker = 20_000): Promise<void> {
    await ensure(jsm, names.stream, () =>
      jsm.streams.add({
        name: names.stream,
        subjects: [`${names.prefix}.>`],
        allow_direct: true,
        num_replicas: replicas,
        max_age: (retentionMs + AGE_GRACE_MS) * 1_000_000, // nanoseconds
        max_msgs_per_subject: maxPerWorker,
      }),
    );
  }

  async append(worker: string, readings: StoredReading[]): Promise<void> {
    if (readings.length === 0) return;
    await this.js.publish(subjectOf(this.names.prefix, worker), pack(readings));
  }

  async range(worker: string, from: number, to: number): Promise<StoredReading[]> {
    const subject = subjectOf(this.names.prefix, worker);
    const query = { last_by_subj: subject };
    const last = await (this.direct ? this.jsm.direct.getMessage(this.names.stream, query) : this.jsm.streams.getMessage(this.names.stream, query));
    if (!last) return [];
    const all: StoredReading[] = [];
    const consumer = await this.js.consumers.get(this.names.stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
    const messages = await consumer.consume({ max_messages: 512 });
    try {
      for await (const m of messages) {
        all.push(...(unpack(m.data) as StoredReading[]));
        if (m.seq >= last.seq) break;
      }
    } finally {
      messages.stop();
      await consumer.delete().catch(() => {});
    }
    const horizon = this.now() - this.retentionMs;
    const kept = all
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.recordedAt - b.r.recordedAt || a.i - b.i)
      .map((x) => x.r)
      .filter((r) => r.recordedAt >= horizon)
      .slice(-this.maxPerWorker);
    return kept.filter((r) => r.recordedAt >= from && r.recordedAt <= to);
  }

  async close(): Promise<void> {}
}
