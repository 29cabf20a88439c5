/**
 * Issuing, listing and revoking workers' device credentials (spec 4.7: "a device credential bound
 * to one worker_id (issued by the organisation, shown once, stored as a digest, revocable)"). The
 * secret (`key`) is in the issuing answer only; the accounts area's credential table keeps its
 * digest, so the gateway authenticates it like an API key and the principal it yields is bound to
 * the worker (kind `device`, scopes DEVICE_SCOPES). Revoking removes the digest first, so the
 * credential stops at once on every node even if recording the revocation fails.
 */
import { dropDeviceSecret, storeDeviceSecret } from '../../accounts/index.ts';
import { ApiError, type Caller, createDedupe, createdId, keyValue, type ListEnvelope, listPage, type Platform } from '../../../kernel/index.ts';
import { DeviceCredential, DEVICE_CREDENTIAL_PREFIX, deviceCredentialView } from './device-credential.ts';
import { WORKER_ID } from '../supply/heartbeat.ts';

/** What a device does is allocation's reads and writes; every other module refuses it by scope (spec 5.6). */
export const DEVICE_SCOPES: readonly string[] = Object.freeze(['match:read', 'match:write']);

/** Where a credential's digest is kept (its actor's events never carry it). */
const digestKey = (id: string) => `device_credential_digest:${id}`;

export type DeviceCredentialWithKey = ReturnType<typeof deviceCredentialView> & { key: string };

export async function issueDeviceCredential(platform: Platform, caller: Caller, body: { worker_id: string; name?: string }): Promise<DeviceCredentialWithKey> {
  if (!WORKER_ID.test(body.worker_id)) throw new ApiError('validation_failed', 'worker_id must be a subject reference of 1 to 255 URL-safe characters.');
  const id = createdId(caller, DEVICE_CREDENTIAL_PREFIX);
  const view = (await platform.system.ask(
    DeviceCredential,
    id,
    'issue',
    { worker_id: body.worker_id, name: body.name ?? null, livemode: caller.livemode, issued_by: caller.principal ?? null },
    { ...caller, dedupeId: createDedupe(caller) },
  )) as ReturnType<typeof deviceCredentialView>;
  // Run again with its Idempotency-Key (the first answer lost), the same credential gets a fresh
  // secret and the one nobody received stops; a credential revoked meanwhile gets none.
  if (view.status !== 'active') throw new ApiError('conflict', `Device credential ${id} was revoked; issue a new one with a new Idempotency-Key.`);
  const kv = keyValue(platform);
  const undelivered = await kv.get<string>(digestKey(id));
  const { secret, digest } = await storeDeviceSecret(kv, { id, org: caller.org, realm: caller.livemode ? 'live' : 'test', worker: body.worker_id, scopes: [...DEVICE_SCOPES] });
  if (undelivered !== undefined && undelivered !== digest) await dropDeviceSecret(kv, undelivered);
  await kv.set(digestKey(id), digest);
  return { ...view, key: secret };
}

export async function revokeDeviceCredential(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  await platform.system.state(DeviceCredential, id, caller.org); // 404 / 403 organisation_mismatch first
  const kv = keyValue(platform);
  const digest = await kv.get<string>(digestKey(id));
  if (digest) await dropDeviceSecret(kv, digest);
  return platform.system.ask(DeviceCredential, id, 'revoke', undefined, { ...caller, dedupeId: createDedupe(caller) });
}

/** Newest first, revoked ones included; `worker_id` narrows to one worker's. */
export const listDeviceCredentials = (platform: Platform, org: string, query: { limit?: number; starting_after?: string; worker_id?: string }) =>
  listPage(platform.system, DeviceCredential, org, query.worker_id ? `worker:${query.worker_id}` : 'all', query, 'desc') as Promise<ListEnvelope<ReturnType<typeof deviceCredentialView>>>;
