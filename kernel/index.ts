/**
 * Public face of the platform kernel: the contract every area is written on (DESIGN, "The actor
 * runtime and the platform kernel"; docs/architecture.md). The shape of an area and its route
 * declarations, the principal and the scope rule, the caller, idempotency helpers, path ids, the
 * error catalogue, ids, money, lists and paging, the typed service registry, and the platform that
 * composes areas. Areas import the kernel from here only.
 */
export { ApiError, CATALOGUE, assertNever, conflict, derivedId, errorEntry, fieldError, flat, hasPrefix, isApiError, isRefusal, newId, notFound, outcomeUnknown, randomString, randomSuffix, timeOrderedId, validationError, validationReport } from './base/index.ts';
export { rememberedDerivedIds, rememberedIds } from './remembered-ids.ts';
export type { DerivedForm, ErrorCode, Log, ValidationEntry, ValidationReport } from './base/index.ts';
export { logOf } from './base/index.ts';
export { mounted, route } from './area.ts';
export type { Area, Auth, Method, Platform, PublicEventDecl, RouteDef, RouteRequest, RouteResult, SocketConnection, SocketContext, SocketDef, SocketLimits } from './area.ts';
export { publicEventTable } from './event-table.ts';
export { factsOf } from './event-facts.ts';
export { recordView } from './record-head.ts';
export { attemptTimers } from './attempts.ts';
export type { AttemptFacts, AttemptStatus } from './attempts.ts';
export { canonicalJson, contentHash, sha256 } from './canonical.ts';
export { parseCsv } from './csv.ts';
export { AUTHENTICATOR, CREDENTIAL_HEADERS } from './authentication.ts';
export type { Authenticator } from './authentication.ts';
export { callerOf } from './caller.ts';
export type { Caller } from './caller.ts';
export { createDedupe, createdId } from './idempotency.ts';
export { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, ListEnvelopeSchema, ListQuery, ListQueryFields, filterLists, filteredList, listEnvelope, listPage, listQueryWith, parseListQuery } from './lists.ts';
export type { ListEnvelope, ListPageRequest, ListQueryValue } from './lists.ts';
export { enumOf } from './enum-schema.ts';
export { CURRENCIES, CURRENCY_DATA_PUBLISHED, MONEY_MARK, Money, assertMoney, currency, formatMinor, isCurrency } from './money.ts';
export type { Currency, MoneyValue } from './money.ts';
export { MEMBERSHIP } from './membership.ts';
export type { Membership } from './membership.ts';
export { idOf, isIdOf, pathRecordId, retrieval } from './path-ids.ts';
export { NodeReadModel, perNodeReadersCaughtUp, platformFeed } from './journal-feeds.ts';
export type { ReadModelHandlers } from './journal-feeds.ts';
export type { Checkpointed } from './read-model-checkpoints.ts';
export { JSON_MAX_DEPTH, JSON_MAX_VALUES, jsonBoundsRefusal } from './json-bounds.ts';
export { createPlatform, stopPlatform } from './platform.ts';
export type { PlatformOptions } from './platform.ts';
export { ACTIONS, ALL_SCOPES, MODULES, isModule, moduleScope, requiredScope } from './scopes.ts';
export type { ModuleInfo, Principal } from './scopes.ts';
export { actorEvents, derivedRecords, journalFeed, keyValue, lists, readings } from './records.ts';
export { publicKey, realmOf, signingKey, signWith, verifySigned } from './signing.ts';
export type { PublicKeyRecord, Realm, SignatureCheck, SignedEnvelope, SigningKey } from './signing.ts';
export { Services, serviceKey } from './services.ts';
export type { ServiceKey } from './services.ts';
export { SubjectNumbers, subjectNumbers } from './subject-numbers.ts';
export { ByteColumn, CountColumn, NumberColumn } from './subject-columns.ts';
export { GateReadModel, type GateFact } from './gate-read-model.ts';
export { emptyReport, oneShotRecord, type OneShotOptions, type OneShotState } from './one-shot-record.ts';
export { NODE_BUS, natsNodeBus, nodeBus, type NodeBus } from './node-bus.ts';
export { NextActionSchema, nextAction, type NextAction } from './next-action.ts';
export { CALLER_REF, CALLER_REF_PATTERN, CALLER_REF_RULE, callerRef, isCallerRef } from './caller-ref.ts';
export { SANDBOX_CAPS, SandboxCaps, sandboxCaps } from './sandbox-caps.ts';
export { ACTIVE_SANDBOX_POLICY, checkSandboxPolicy, sandboxPolicy, type LoadedSandboxPolicy, type SandboxPolicy, type UpFront as SandboxUpFront } from './sandbox-policy.ts';
