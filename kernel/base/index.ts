/**
 * The kernel's lowest layer: what the actor runtime itself speaks. A decider refuses with an
 * ApiError (DESIGN, "The runtime"), the runtime refuses with one too (overloaded, unavailable) and
 * mints event ids, so these sit below the runtime; everything else of the kernel sits above it.
 * Areas import them from the kernel's face (kernel/index.ts), never from here.
 */
export { ApiError, CATALOGUE, assertNever, conflict, errorEntry, fieldError, isApiError, isRefusal, notFound, outcomeUnknown, validationError, validationReport } from './errors.ts';
export type { ErrorCode, ValidationEntry, ValidationReport } from './errors.ts';
export { derivedId, hasPrefix, newId, randomString, randomSuffix, shownId, timeOrderedId } from './ids.ts';
export type { DerivedForm } from './ids.ts';
export { flat } from './strings.ts';
export { createRootLog, logOf, SECRET_FIELDS, setRootLog } from './log.ts';
export type { Log } from './log.ts';
