/** Public face of stores/: the interfaces and the factories. Implementations stay private. */
export type * from './types.ts';
export { VersionConflictError } from './types.ts';
export { createMemoryStores, type MemoryStoreOptions } from './memory/index.ts';
