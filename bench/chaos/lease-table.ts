/**
 * The shard lease table as JetStream holds it, read from the lease bucket's stream leader (a direct
 * get may be answered by a lagging replica), over a connection that knows every server so it moves
 * on when one dies; undefined while the bucket has no leader.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { DEFAULT_SHARDS } from '../../runtime/cluster/index.ts';

export interface Lease {
  node: string;
  until: number;
}

export class LeaseTable {
  private constructor(
    private readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    private readonly namespace: string,
  ) {}

  static async open(servers: string[], namespace: string): Promise<LeaseTable> {
    const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    return new LeaseTable(nc, await jetstreamManager(nc, { timeout: 1000 }), namespace);
  }

  async read(): Promise<Lease[] | undefined> {
    const bucket = `${this.namespace}_shards`;
    try {
      return await Promise.all(
        Array.from({ length: DEFAULT_SHARDS }, async (_, s) => {
          const m = await this.jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.s.${s}` }).catch((e) => {
            if (/no message found/i.test(String(e))) return null;
            throw e;
          });
          return m && m.data.length ? m.json<Lease>() : { node: '', until: 0 };
        }),
      );
    } catch {
      return undefined;
    }
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}

/** Shards held by no live node with an unexpired lease at `at` (wall time). */
export const unowned = (table: readonly Lease[], live: readonly string[], at: number) => table.filter((l) => !live.includes(l.node) || l.until <= at).length;
