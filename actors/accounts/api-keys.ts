/**
 * Issuing and revoking API keys (spec 5.1, 5.2, 5.6, 5.8). A key is `sk_test_` + 40 base62
 * characters in the sandbox realm; it is returned once, at creation, and kept only as a digest.
 * Scopes: only named ones, never a wildcard, never more than the issuer holds.
 */
import { ApiError, type Caller, createDedupe, createdId, errorEntry, keyValue, type ListEnvelope, listPage, type Platform, type Realm, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { ApiKey, type ApiKeyView } from './api-key.ts';
import { putCredential, removeCredential } from './credential-records.ts';
import { personBehind } from './persons.ts';
import { revokedKeysOf } from './revoked-keys.ts';
import { canonicalScopes, isScope } from './scopes.ts';
import { digest, newSecret } from './secrets.ts';

/** Where a key's digest is kept (the actor's events never carry it). */
const digestKey = (id: string) => `api_key_digest:${id}`;

export type ApiKeyWithSecret = ApiKeyView & { key: string };

export const KEY_PREFIX: Record<Realm, string> = { test: 'sk_test_', live: 'sk_live_' };

export interface IssueKey {
  name: string;
  realm: Realm;
  scopes: string[];
  /** Epoch ms at which the key ends by itself (a key made to end with its session); none: until revoked. */
  expiresAt?: number;
}

/**
 * Checks requested scopes: each must be a named scope (a wildcard never is), and within `held`
 * when given. Unknown or wildcard scopes are a refused value (400, every one named); a scope the
 * issuer does not hold is 403 forbidden naming it (spec 5.6).
 */
export function checkScopes(requested: string[], held: ReadonlySet<string> | undefined, field = '/scopes'): string[] {
  const bad: ValidationEntry[] = [];
  requested.forEach((s, i) => {
    if (!isScope(s)) {
      const wild = s.includes('*');
      bad.push(errorEntry(`${field}/${i}`, wild ? 'wildcard_scope' : 'unknown_scope', wild ? `${s}: a wildcard scope cannot be issued.` : `${s} is not a scope; scopes are module:read|write|approve (see docs).`, bad.length + 1));
    }
  });
  if (bad.length) throw validationError(bad, requested.length);
  if (held) {
    const missing = requested.filter((s) => !held.has(s));
    if (missing.length) throw new ApiError('forbidden', `A key cannot carry a scope its issuer lacks: missing ${missing.join(', ')}.`);
  }
  return canonicalScopes(requested);
}

/**
 * Issue a key for the caller's organisation. Run again with the same Idempotency-Key (its first
 * answer lost with a node), it issues nothing new: the same key gets a fresh secret, and the secret
 * nobody received stops working, so the caller holds exactly one working key.
 */
export async function issueKey(platform: Platform, caller: Caller, k: IssueKey): Promise<ApiKeyWithSecret> {
  const secret = newSecret(KEY_PREFIX[k.realm]);
  const d = digest(secret);
  const id = createdId(caller, ApiKey.prefix);
  const person = await personBehind(platform, caller);
  const expires_at = k.expiresAt === undefined ? null : new Date(k.expiresAt).toISOString();
  const view = await platform.system.ask(ApiKey, id, 'issue', { name: k.name, realm: k.realm, scopes: k.scopes, person, expires_at }, { ...caller, dedupeId: createDedupe(caller) });
  const kv = keyValue(platform);
  const undelivered = await kv.get<string>(digestKey(id));
  if (undelivered !== undefined && undelivered !== d) await removeCredential(kv, undelivered);
  await kv.set(digestKey(id), d);
  if (k.expiresAt === undefined) await putCredential(kv, { type: 'api_key', digest: d, id, org: caller.org, realm: k.realm, scopes: k.scopes });
  // checked against the platform clock at each use, and kept no longer than it can be used
  else await putCredential(kv, { type: 'api_key', digest: d, id, org: caller.org, realm: k.realm, scopes: k.scopes, expires_at: k.expiresAt }, Math.max(1, k.expiresAt - platform.clock.now()));
  return { ...view, key: secret };
}

/**
 * The credential goes first, so the key stops at once even if recording the revocation fails. The
 * digest record that finds it is derived and may be missing: the recorded revocation then stops the
 * key (revoked-keys.ts), on this node as soon as it is answered.
 */
export async function revokeKey(platform: Platform, caller: Caller, id: string): Promise<ApiKeyView> {
  await platform.system.state(ApiKey, id, caller.org); // 404 / 403 organisation_mismatch first
  const kv = keyValue(platform);
  const d = await kv.get<string>(digestKey(id));
  if (d) await removeCredential(kv, d);
  const view = await platform.system.ask(ApiKey, id, 'revoke', undefined, caller);
  revokedKeysOf(platform)?.add(id);
  return view;
}

/** Newest first, revoked keys included (spec 5.2). */
export const listKeys = (platform: Platform, org: string, query: { limit?: number; starting_after?: string }) =>
  listPage(platform.system, ApiKey, org, 'all', query, 'desc') as Promise<ListEnvelope<ApiKeyView>>;

export async function allKeys(platform: Platform, org: string): Promise<ApiKeyView[]> {
  const out: ApiKeyView[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listKeys(platform, org, { limit: 100, starting_after: after });
    out.push(...page.data);
    if (!page.has_more || page.data.length === 0) return out;
    after = page.data[page.data.length - 1].id;
  }
}
