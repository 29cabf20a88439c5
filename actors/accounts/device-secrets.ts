/**
 * Device credentials' secrets in the credential table (spec 4.7: "a device credential bound to one
 * worker_id, issued by the organisation, shown once, stored as a digest, revocable"). The allocation
 * area keeps the credential's record and its lifecycle; this table keeps only the digest, so the
 * gateway authenticates a device like any other credential (credential-records.ts). The secret is
 * `dk_test_` (or `dk_live_`) and 40 base62 characters (docs/gaps.md#allocation).
 */
import type { Realm } from '../../kernel/index.ts';
import type { KeyValueStore } from '../../stores/index.ts';
import { putCredential, removeCredential } from './credential-records.ts';
import { digest, newSecret } from './secrets.ts';

export const DEVICE_KEY_PREFIX: Record<Realm, string> = { test: 'dk_test_', live: 'dk_live_' };

export interface DeviceSecretFor {
  /** The allocation area's credential id. */
  id: string;
  org: string;
  realm: Realm;
  worker: string;
  scopes: string[];
}

/** A new secret for the device credential, authenticating at once; the caller shows it once and keeps only the digest. */
export async function storeDeviceSecret(kv: KeyValueStore, d: DeviceSecretFor): Promise<{ secret: string; digest: string }> {
  const secret = newSecret(DEVICE_KEY_PREFIX[d.realm]);
  const hex = digest(secret);
  await putCredential(kv, { type: 'device', digest: hex, id: d.id, org: d.org, realm: d.realm, worker: d.worker, scopes: d.scopes });
  return { secret, digest: hex };
}

/** The secret of this digest stops authenticating, on every node (the record is the one place it is looked up). */
export const dropDeviceSecret = (kv: KeyValueStore, secretDigest: string): Promise<void> => removeCredential(kv, secretDigest);
