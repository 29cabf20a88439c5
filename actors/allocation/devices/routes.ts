/**
 * Device credential routes (spec 4.7: "a device credential bound to one worker_id (issued by the
 * organisation, shown once, stored as a digest, revocable)"). Paths and shapes are not shown: ours
 * are under /v1/allocation/device_credentials (docs/gaps.md#allocation). A device credential
 * itself cannot reach them (device-access.ts).
 */
import { Type } from '@sinclair/typebox';
import { callerOf, callerRef, idOf, listQueryWith, route, type RouteDef } from '../../../kernel/index.ts';
import { DeviceCredential, DEVICE_CREDENTIAL_PREFIX } from './device-credential.ts';
import { issueDeviceCredential, listDeviceCredentials, revokeDeviceCredential } from './device-credentials.ts';

const M = 'match';
const gap = 'The spec names device credentials (4.7) but not their endpoints or shapes; see docs/gaps.md#allocation.';
const credId = (id: string) => idOf(id, DEVICE_CREDENTIAL_PREFIX, 'device credential');

const IssueBody = Type.Object(
  {
    worker_id: callerRef('The worker (a subject_ref) the credential acts for, and no other.'),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'What the credential is for, e.g. the device.' })),
  },
  { additionalProperties: false },
);
const ListQuery = listQueryWith({ worker_id: Type.Optional(callerRef('Only this worker\u2019s credentials.')) });

export const deviceRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/v1/allocation/device_credentials',
    auth: 'key',
    module: M,
    idempotent: true,
    status: 201,
    body: IssueBody,
    specGap: gap,
    summary: 'Issue a device credential bound to one worker: the secret `key` is in this answer only; only its digest is kept.',
    handler: (req) => issueDeviceCredential(req.platform, callerOf(req), req.body),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/device_credentials',
    auth: 'key',
    module: M,
    idempotent: false,
    query: ListQuery,
    specGap: gap,
    summary: 'List device credentials, newest first, revoked ones included (with revoked_at); filter worker_id.',
    handler: (req) => listDeviceCredentials(req.platform, req.org, req.query),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/device_credentials/{device_credential_id}',
    auth: 'key',
    module: M,
    idempotent: false,
    specGap: gap,
    summary: 'Retrieve a device credential (never its secret).',
    handler: (req) => req.platform.system.get(DeviceCredential, credId(req.params.device_credential_id!), req.org),
  }),
  route({
    method: 'POST',
    path: '/v1/allocation/device_credentials/{device_credential_id}/revoke',
    auth: 'key',
    module: M,
    idempotent: true,
    specGap: gap,
    summary: 'Revoke a device credential: it stops authenticating at once (requests, new sockets and frames on open ones) and stays listed with revoked_at.',
    handler: (req) => revokeDeviceCredential(req.platform, callerOf(req), credId(req.params.device_credential_id!)),
  }),
];
