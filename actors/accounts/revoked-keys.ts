/**
 * The API keys revoked so far, known on every node from the journal (spec 5.2: a revoked key stops
 * authenticating; docs/gaps.md#accounts "Revocation without the derived records").
 *
 * Revoking deletes the key's credential record, found through the key's digest record; both are
 * derived records in the key-value store. If either is missing or stale, the credential would
 * outlive the revocation. The journal is the truth: every `api_key.revoked` event puts its key here
 * (this node's commits at once, every node's through its own journal feed), and authentication
 * refuses a credential whose key is here, whatever the key-value store still holds. One entry per
 * revoked key: a revoked key is a record kept for good (it stays listed), so this grows with them.
 */
import type { Committed } from '../../runtime/index.ts';
import { NodeReadModel, type Platform } from '../../kernel/index.ts';
import type { FeedEntry } from '../../stores/index.ts';
import { ApiKey, type ApiKeyState } from './api-key.ts';

const STREAM = `${ApiKey.kind}.`;

/** Each platform's revoked keys (the accounts area starts one per platform). */
const perPlatform = new WeakMap<Platform, RevokedKeys>();

export const revokedKeysOf = (platform: Platform): RevokedKeys | undefined => perPlatform.get(platform);

export class RevokedKeys {
  private readonly ids = new Set<string>();
  private readonly follower: NodeReadModel;

  constructor(private readonly platform: Platform) {
    this.follower = new NodeReadModel(platform, 'accounts-revoked-keys', {
      onCommit: (c) => this.onCommit(c),
      onFeed: (e) => this.onFeed(e),
      kept: { save: () => [...this.ids], load: (ids) => (ids as string[]).forEach((id) => this.ids.add(id)) },
      wants: (stream) => stream.startsWith(STREAM),
    });
  }

  has(keyId: string): boolean {
    return this.ids.has(keyId);
  }

  /**
   * A revocation this node answered: known here at once, even when the key's actor committed it on
   * another node whose journal entry this node's feed has not read yet.
   */
  add(keyId: string): void {
    this.ids.add(keyId);
  }

  start(): void {
    perPlatform.set(this.platform, this);
    this.follower.start();
  }

  async stop(): Promise<void> {
    await this.follower.stop();
    perPlatform.delete(this.platform);
  }

  private onCommit(c: Committed): void {
    if (c.kind === ApiKey.kind && (c.state as ApiKeyState).status === 'revoked') this.ids.add(c.id);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (event.type === 'api_key.revoked' && stream.startsWith(STREAM)) this.ids.add(stream.slice(STREAM.length));
    }
  }
}
