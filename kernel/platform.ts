/**
 * Composition: the areas' kinds in one actor system, the areas' services started around it.
 * main.ts and the test harness both build the platform here, so they cannot drift apart.
 */
import type { Stores } from '../stores/index.ts';
import type { Area, Platform } from './area.ts';
import { ActorSystem, type Clock, type Limits, type Placement } from '../runtime/index.ts';
import { perNodeReadersCaughtUp } from './journal-feeds.ts';
import { loadReadModels, saveReadModels } from './read-model-checkpoints.ts';
import { MEMBERSHIP, soleProcessMembership } from './membership.ts';
import { SANDBOX_CAPS, SandboxCaps } from './sandbox-caps.ts';
import { Services } from './services.ts';

export interface PlatformOptions {
  areas: readonly Area[];
  stores: Stores;
  clock: Clock;
  config?: Readonly<Record<string, string | undefined>>;
  limits?: Partial<Limits>;
  placement?: Placement;
}

export async function createPlatform(opts: PlatformOptions): Promise<Platform> {
  const system = new ActorSystem({ stores: opts.stores, clock: opts.clock, kinds: opts.areas.flatMap((a) => a.kinds), limits: opts.limits, placement: opts.placement });
  const platform: Platform = { system, clock: opts.clock, stores: opts.stores, services: new Services(), config: opts.config ?? {}, areas: opts.areas };
  if (opts.stores.mode === 'embedded' && opts.stores.durable) platform.services.provide(MEMBERSHIP, soleProcessMembership());
  await loadReadModels(platform);
  const caps = new SandboxCaps(platform);
  platform.services.provide(SANDBOX_CAPS, caps);
  const started: Area[] = [];
  try {
    caps.start();
    for (const area of opts.areas) {
      started.push(area);
      await area.start?.(platform);
    }
    await system.start();
    await perNodeReadersCaughtUp(platform);
  } catch (e) {
    // a start that failed part way stops what it began (feed readers, timers), so nothing of it
    // goes on reading stores its caller closes next
    await system.stop().catch(() => undefined);
    for (const area of started.reverse()) await (async () => area.stop?.(platform))().catch(() => undefined);
    await caps.stop().catch(() => undefined);
    throw e;
  }
  return platform;
}

/** Drain mailboxes, flush snapshots, keep the read models (where the stores allow), stop the areas, close the stores. */
export async function stopPlatform(platform: Platform): Promise<void> {
  await platform.system.stop();
  await saveReadModels(platform, () => perNodeReadersCaughtUp(platform));
  for (const area of [...platform.areas].reverse()) await area.stop?.(platform);
  await platform.services.get(SANDBOX_CAPS)?.stop();
  await platform.stores.close();
}
