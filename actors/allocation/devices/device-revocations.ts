/**
 * Revoked device credentials, known on every node (spec 4.7: a device credential is revocable). A
 * request authenticates afresh each time against the credential table, so a revoked credential's
 * next request is refused there; a heartbeat socket authenticated before the revocation is not, so
 * its frames ask this read model (a set lookup, no I/O). It follows the actor system's commits on
 * this node and, in a cluster, the journal feed for revocations committed on other nodes
 * (kernel NodeReadModel).
 */
import type { Committed } from '../../../runtime/index.ts';
import { NodeReadModel, type Platform, serviceKey } from '../../../kernel/index.ts';
import type { FeedEntry } from '../../../stores/index.ts';
import { DeviceCredential, type DeviceCredentialState } from './device-credential.ts';

const STREAM = `${DeviceCredential.kind}.`;
const REVOKED = 'device_credential.revoked';

export class DeviceRevocations {
  private readonly revoked = new Set<string>();
  private readonly follower: NodeReadModel;

  constructor(platform: Platform) {
    this.follower = new NodeReadModel(platform, 'allocation-device-revocations', {
      onCommit: (c) => this.onCommit(c),
      onFeed: (e) => this.onFeed(e),
      kept: { save: () => [...this.revoked], load: (ids) => (ids as string[]).forEach((id) => this.revoked.add(id)) },
      wants: (stream) => stream.startsWith(STREAM),
    });
  }

  isRevoked(credentialId: string): boolean {
    return this.revoked.has(credentialId);
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  private onCommit(c: Committed): void {
    if (c.kind === DeviceCredential.kind && (c.state as DeviceCredentialState).status === 'revoked') this.revoked.add(c.id);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) if (event.type === REVOKED && stream.startsWith(STREAM)) this.revoked.add(stream.slice(STREAM.length));
  }
}

export const DEVICE_REVOCATIONS = serviceKey<DeviceRevocations>('allocation.device_revocations');
