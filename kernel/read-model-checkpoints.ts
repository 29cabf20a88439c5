/**
 * The node's read models kept between a stop and the next start (docs/architecture.md "What a
 * restart costs"). A read model every node keeps in memory (a gate, the revoked keys, the sandbox
 * counts) is rebuilt at start from the journal feed, read from its beginning: at a million workers
 * that read is most of a start. On the local stores (`Stores.readModels`) a graceful stop writes
 * what each model took from the journal, with how far it had read, once the models have read the
 * whole journal and nothing commits any more; the next start takes that back and reads the journal
 * only past it. After a kill -9 the last checkpoint still holds: the journal only grows, so the
 * start reads on from the checkpoint's position, further than after a stop, never wrong.
 *
 * A model saves the facts it took from events, not what it worked out from them (columns by
 * subject number, rankings): `load` puts the facts back through the same steps a feed entry takes,
 * so what depends on this process (subject numbers) or on its configuration (a policy pack) is
 * worked out afresh. A checkpoint is used only by the build that wrote it (WORKFORCE_BUILD_ID,
 * set by `npm start`'s launcher from the bundle it runs; a process without one neither writes nor
 * reads them), since another build may take other facts from the same events; and only over the
 * journal it was written from: the event at its position must be the one it names.
 */
import { Packr } from 'msgpackr';
import type { FeedMember } from '../runtime/index.ts';
import type { Platform } from './area.ts';
import { logOf } from './base/index.ts';

/** A read model that can be kept between a stop and a start. */
export interface Checkpointed {
  /** What the model took from the journal so far, as plain data. */
  save(): unknown;
  /** Into the model as it is at start (empty), what save() gave, as if its entries were read again. */
  load(data: unknown): void;
}

interface Saved {
  build: string;
  /** The furthest position a model had read; every model's cursor is at or before it. */
  position: number;
  /** The id of the event at `position`: the journal the checkpoint was written from. */
  eventId: string;
  models: Record<string, { cursor: number; data: unknown }>;
}

const codec = new Packr({ useRecords: false });
const log = logOf('read-model checkpoints');

/** Per platform: the checkpoint read at start (taken model by model), and the models that may be saved at stop. */
interface Checkpoints {
  taken: Map<string, { cursor: number; data: unknown }>;
  models: Map<string, { model: Checkpointed; member: FeedMember }>;
}
const perPlatform = new WeakMap<Platform, Checkpoints>();

const buildOf = (platform: Platform): string | undefined => platform.config.WORKFORCE_BUILD_ID || undefined;

function checkpointsOf(platform: Platform): Checkpoints {
  let c = perPlatform.get(platform);
  if (!c) perPlatform.set(platform, (c = { taken: new Map(), models: new Map() }));
  return c;
}

/**
 * Reads the checkpoint, if there is one this build may use (createPlatform, before any model
 * starts). A checkpoint that cannot be read or used is reported and left: the models read the
 * whole journal, as without one.
 */
export async function loadReadModels(platform: Platform): Promise<void> {
  const store = platform.stores.readModels;
  const build = buildOf(platform);
  if (!store || !build) return;
  let saved: Saved;
  try {
    const bytes = await store.read();
    if (!bytes) return;
    saved = codec.unpack(bytes) as Saved;
  } catch (e) {
    log.warn('the read models are rebuilt from the whole journal: their checkpoint could not be read', { error: (e as Error).message });
    return;
  }
  if (saved.build !== build) {
    log.info('the read models are rebuilt from the whole journal: their checkpoint was written by another build');
    return;
  }
  const [at] = await platform.stores.journal.readFeed(saved.position - 1, 1);
  if (at?.position !== saved.position || at.event.id !== saved.eventId) {
    log.warn('the read models are rebuilt from the whole journal: their checkpoint was written from another journal', { position: saved.position });
    return;
  }
  checkpointsOf(platform).taken = new Map(Object.entries(saved.models));
}

/**
 * A model that may be kept (kernel platformFeed, before its member starts): it takes back what the
 * checkpoint holds for `name`, and its member reads on from there.
 */
export function restoreReadModel(platform: Platform, name: string, model: Checkpointed, member: FeedMember): void {
  const c = checkpointsOf(platform);
  c.models.set(name, { model, member });
  const kept = c.taken.get(name);
  if (!kept) return;
  c.taken.delete(name);
  try {
    model.load(kept.data);
  } catch (e) {
    // half taken back, the model cannot read the journal again from its start without counting
    // twice what it took: the start stops, and says how to start without the checkpoint
    throw new Error(`the read model ${name} could not be taken back from its checkpoint (${(e as Error).message}); remove ${platform.stores.readModels?.location} and start again: the start then reads the whole journal`, { cause: e });
  }
  member.cursor = kept.cursor;
}

/**
 * Writes the checkpoint (stopPlatform, once the actor system has stopped and before the areas
 * stop): `caughtUp` resolves once every model has read the whole journal. A failure is reported,
 * never the stop's: the next start reads the journal from the last checkpoint that was written.
 */
export async function saveReadModels(platform: Platform, caughtUp: () => Promise<void>): Promise<void> {
  const store = platform.stores.readModels;
  const build = buildOf(platform);
  const c = perPlatform.get(platform);
  if (!store || !build || !c?.models.size) return;
  try {
    await caughtUp();
    const models: Saved['models'] = {};
    let position = 0;
    for (const [name, { model, member }] of c.models) {
      if (member.stopping) continue;
      models[name] = { cursor: member.cursor, data: model.save() };
      position = Math.max(position, member.cursor);
    }
    if (position === 0) return;
    const [at] = await platform.stores.journal.readFeed(position - 1, 1);
    if (at?.position !== position) throw new Error(`the journal has no entry at ${position}, which a model read`);
    await store.write(codec.pack({ build, position, eventId: at.event.id, models } satisfies Saved));
  } catch (e) {
    log.error('the read models were not kept: the next start reads the journal from the last checkpoint', { error: (e as Error).message });
  }
}
