/**
 * The identity module's node-local process (docs/architecture.md "Adding an area": service.ts): its
 * sources (providers/), the personal-data vault, the live-passport gate, and the following of
 * verification.collection_due, which hands each due collection to the collector the face gives it
 * (verifications.ts collectAnswers: operations reach the service, the service never reaches them).
 * Provided under IDENTITY by the face's start; identityService is its accessor.
 */
import { ApiError, logOf, type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { PassportGate } from './gate.ts';
import { type IdentitySource, sandboxSources } from './providers/index.ts';
import { Vault } from './vault.ts';
import { Verification } from './verification.ts';

export const IDENTITY = serviceKey<IdentityService>('identity');

/** Collects the late answers of one verification (the references its collection_due names). */
export type Collector = (org: string, verificationId: string, references: string[]) => Promise<void>;

export class IdentityService {
  readonly gate: PassportGate;
  readonly vault: Vault;
  readonly sources: IdentitySource[];
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly platform: Platform, private readonly collect: Collector, sources?: IdentitySource[]) {
    this.gate = new PassportGate(platform);
    this.vault = new Vault(platform);
    const slow = Number(platform.config.IDENTITY_SANDBOX_SLOW_ANSWER_MS ?? 120_000);
    this.sources = sources ?? sandboxSources(Number.isFinite(slow) && slow >= 0 ? slow : 120_000);
  }

  async start(): Promise<void> {
    await this.vault.start();
    this.gate.start();
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.gate.stop();
  }

  source(id: string): IdentitySource | undefined {
    return this.sources.find((s) => s.id === id);
  }

  private onCommit(c: Committed): void {
    if (c.kind !== Verification.kind) return;
    for (const e of c.events) {
      if (e.type !== 'verification.collection_due') continue;
      const refs = (e.data as { references: string[] }).references;
      void this.platform.system.track(this.collect(c.org, c.id, refs)).catch((err) => {
        if (!(err instanceof ApiError)) logOf('identity').error('collecting answers failed; the next reminder tries again', err, { verification: c.id });
      });
    }
  }
}

export const identityService = (platform: Platform): IdentityService => platform.services.require(IDENTITY);
