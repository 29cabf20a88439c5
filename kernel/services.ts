/**
 * The typed service registry: an area registers its long-lived services (providers, engines,
 * feeds) in Area.start under a key made once with serviceKey<T>(), and reads them back typed, with
 * no string lookups and no casts at the point of use.
 */

/** A key names a service and carries its type. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: it only carries T. */
  readonly type?: T;
}

export const serviceKey = <T>(name: string): ServiceKey<T> => Object.freeze({ name });

export class Services {
  private readonly byKey = new Map<ServiceKey<unknown>, unknown>();

  provide<T>(key: ServiceKey<T>, service: T): void {
    if (this.byKey.has(key)) throw new Error(`services: ${key.name} is registered twice`);
    this.byKey.set(key, service);
  }

  get<T>(key: ServiceKey<T>): T | undefined {
    return this.byKey.get(key) as T | undefined;
  }

  /** The service, or a fault naming it: an area asked for a service its platform was built without. */
  require<T>(key: ServiceKey<T>): T {
    if (!this.byKey.has(key)) throw new Error(`services: ${key.name} is not registered on this platform`);
    return this.byKey.get(key) as T;
  }

  remove<T>(key: ServiceKey<T>): T | undefined {
    const s = this.get(key);
    this.byKey.delete(key);
    return s;
  }
}
