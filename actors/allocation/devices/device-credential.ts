/**
 * Device credential (allocation). Spec 4.7: "a device credential bound to one worker_id (issued by
 * the organisation, shown once, stored as a digest, revocable)". Neither the secret nor its digest
 * is held here (events may be published): the accounts area's credential table keeps the digest
 * (device-credentials.ts). A revoked credential stays listed with revoked_at, as an API key does
 * (spec 5.2). Shapes are not shown: docs/gaps.md#allocation.
 *
 * status   command  condition  event                        next
 * -------  -------  ---------  ---------------------------  -------
 * (none)   issue    -          device_credential.issued     active
 * active   issue    -          409 conflict                 active
 * revoked  issue    -          409 conflict                 revoked
 * active   revoke   -          device_credential.revoked    revoked
 * revoked  revoke   -          409 conflict                 revoked
 * (none)   revoke   -          409 conflict                 (none)
 */
import { defineActor, iso, type IndexEntry, sortKeyTime } from '../../../runtime/index.ts';
import { assertNever, conflict, recordView } from '../../../kernel/index.ts';

export const DEVICE_CREDENTIAL_PREFIX = 'match_device_credential_';

export type DeviceCredentialStatus = 'none' | 'active' | 'revoked';

export interface DeviceCredentialState {
  id: string;
  org: string;
  status: DeviceCredentialStatus;
  worker_id: string;
  name: string | null;
  livemode: boolean;
  /** Who issued it (the caller's principal id). */
  issued_by: string | null;
  created_at: string;
  revoked_at: string | null;
}

interface IssueCommand {
  worker_id: string;
  name: string | null;
  livemode: boolean;
  issued_by: string | null;
}

type DeviceCredentialEvent =
  | { type: 'device_credential.issued'; worker_id: string; name: string | null; livemode: boolean; issued_by: string | null }
  | { type: 'device_credential.revoked'; worker_id: string };

export const deviceCredentialView = (s: DeviceCredentialState) => (recordView('device_credential', s.id, s.livemode, false as const, {
  worker_id: s.worker_id,
  name: s.name,
  status: s.status === 'revoked' ? ('revoked' as const) : ('active' as const),
  created_at: s.created_at,
  revoked_at: s.revoked_at,
}));

export const DeviceCredential = defineActor({
  kind: 'allocation_device_credential',
  prefix: DEVICE_CREDENTIAL_PREFIX,
  creates: ['issue'],
  initial: (id, org): DeviceCredentialState => ({ id, org, status: 'none', worker_id: '', name: null, livemode: false, issued_by: null, created_at: '', revoked_at: null }),
  decide: {
    issue(state: DeviceCredentialState, cmd: IssueCommand): DeviceCredentialEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'device_credential.issued', worker_id: cmd.worker_id, name: cmd.name, livemode: cmd.livemode, issued_by: cmd.issued_by }];
        case 'active':
        case 'revoked':
          throw conflict('This device credential was already issued.');
        default:
          return assertNever(state.status);
      }
    },
    revoke(state: DeviceCredentialState): DeviceCredentialEvent[] {
      switch (state.status) {
        case 'active':
          return [{ type: 'device_credential.revoked', worker_id: state.worker_id }];
        case 'revoked':
          throw conflict(`Device credential ${state.id} is already revoked (revoked_at ${state.revoked_at}).`);
        case 'none':
          throw conflict('This device credential does not exist.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: DeviceCredentialState, e: DeviceCredentialEvent, meta): DeviceCredentialState {
    switch (e.type) {
      case 'device_credential.issued':
        return { ...state, status: 'active', worker_id: e.worker_id, name: e.name, livemode: e.livemode, issued_by: e.issued_by, created_at: iso(meta.at) };
      case 'device_credential.revoked':
        return { ...state, status: 'revoked', revoked_at: iso(meta.at) };
      default:
        return assertNever(e);
    }
  },
  view: deviceCredentialView,
  // Newest first; revoked credentials stay listed (as API keys do, spec 5.2).
  indexes(s: DeviceCredentialState): IndexEntry[] {
    if (s.status === 'none') return [];
    const k = sortKeyTime(Date.parse(s.created_at));
    return [
      { list: 'all', sortKey: k },
      { list: `worker:${s.worker_id}`, sortKey: k },
    ];
  },
});
