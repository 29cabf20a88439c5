/** Identity sources behind the provider interface (spec rule 8; reference 1.2-1.4). */
export type { IdentitySource, SourceAnswer, SourceFieldMatches, SourceQuery, SourceRecord, SourceState } from './source.ts';
export { SANDBOX_TEST_VALUES, SandboxSource, sandboxSources } from './sandbox.ts';
export { REGISTRY_TEST_VALUES, SandboxCorporateRegistry } from './corporate-registry.ts';
