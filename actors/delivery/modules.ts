/**
 * Transitional: the module table is the kernel's (kernel/scopes.ts MODULES). Only feed.ts still
 * imports isModule from here; delete this file once it imports the kernel's.
 */
export { isModule } from '../../kernel/index.ts';
