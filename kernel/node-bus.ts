/**
 * The node bus: soft-state messages between the nodes of one cluster (docs/cluster.md), for state
 * every node keeps a copy of and rebuilds from its own sources when a message is lost (the
 * allocation area's supply replica). Core NATS on the cluster's own connection, each topic under
 * the stores' namespace, so two clusters sharing a NATS server never hear each other. No bus means
 * one process: that node's copy is the whole state.
 *
 * An area asks `nodeBus(platform)` and never reads the cluster stores itself
 * (docs/architecture.md "Adding an area"). The bus is made on the first ask from the platform's
 * stores: the areas start inside createPlatform, before the caller holding the stores could
 * provide anything, and a platform over cluster stores then always has it. A test may provide
 * NODE_BUS of its own before the areas start.
 */
import type { ClusterStores } from '../stores/index.ts';
import type { Platform } from './area.ts';
import { serviceKey } from './services.ts';

export interface NodeBus {
  /** Publish to every node hearing the topic, this one included; nothing is kept for a node that is not. */
  publish(topic: string, data: Uint8Array): void;
  /** Hear a topic; the returned call stops hearing it. */
  subscribe(topic: string, onMessage: (data: Uint8Array) => void, onError: (e: Error) => void): () => void;
  /** The connection is closed for good (the platform stopping): a publish would fail. */
  readonly closed: boolean;
}

export const NODE_BUS = serviceKey<NodeBus>('kernel.node-bus');

/** The platform's node bus, or undefined when the platform is one process (memory or local stores). */
export function nodeBus(platform: Platform): NodeBus | undefined {
  const held = platform.services.get(NODE_BUS);
  if (held) return held;
  if (platform.stores.mode !== 'cluster') return undefined;
  const stores = platform.stores as ClusterStores;
  const bus = natsNodeBus(stores.nats, stores.namespace);
  platform.services.provide(NODE_BUS, bus);
  return bus;
}

/** A node bus over a NATS connection, its topics under the namespace (a bench's bare connections use it too). */
export function natsNodeBus(nc: ClusterStores['nats'], namespace: string): NodeBus {
  const subject = (topic: string) => `${namespace}.${topic}`;
  return {
    publish: (topic, data) => nc.publish(subject(topic), data),
    subscribe(topic, onMessage, onError) {
      const sub = nc.subscribe(subject(topic), { callback: (err, msg) => (err ? onError(err) : onMessage(msg.data)) });
      return () => sub.unsubscribe();
    },
    get closed() {
      return nc.isClosed();
    },
  };
}
