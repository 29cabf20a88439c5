/**
 * An area of the spec (actors/<area>/index.ts exports one). The platform composes areas; the
 * runtime and the gateway know areas only through this shape.
 */
import type { AnyActorDef } from './actor.ts';
import type { Clock } from './clock.ts';
import type { RouteDef, SocketDef } from './route.ts';
import type { ActorSystem } from './system.ts';
import type { Stores } from '../stores/index.ts';

/** A public event type (spec 6), produced when an actor of `kind` commits a journal event `on`. */
export interface PublicEventDecl {
  /** module.resource.past_tense_verb style, e.g. run.approved. */
  type: string;
  /** spec 6 source: anchor, proof, rail, flow, match, run, remit, route, gateway, iam, ledger, delivery ... */
  source: string;
  schemaVersion: number;
  kind: string;
  on: string;
  description: string;
  /** True where the spec does not name this type (listed in docs/gaps.md). */
  specGap?: boolean;
}

export interface Platform {
  system: ActorSystem;
  clock: Clock;
  stores: Stores;
  /** Per-area services (providers, engines) registered in Area.start, looked up by name. */
  services: Map<string, unknown>;
  config: Readonly<Record<string, string | undefined>>;
  /** Every area mounted on this platform (the event system reads kinds and modules from it). */
  areas: readonly Area[];
}

export interface Area {
  name: string;
  kinds: AnyActorDef[];
  routes: RouteDef[];
  events?: PublicEventDecl[];
  /** WebSocket endpoints (served by the gateway's one transport file). */
  sockets?: SocketDef[];
  start?(platform: Platform): Promise<void> | void;
  stop?(platform: Platform): Promise<void> | void;
}
