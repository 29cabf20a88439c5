/**
 * The devices family of the allocation area (spec 4.7: "a device credential bound to one
 * worker_id (issued by the organisation, shown once, stored as a digest, revocable)"): the
 * credentials, their revocations as every node learns them, and what a device may reach. The area
 * face (actors/allocation/index.ts) re-exports what other families and areas may use.
 */
export { DeviceCredential, DEVICE_CREDENTIAL_PREFIX } from './device-credential.ts';
export { DEVICE_SCOPES } from './device-credentials.ts';
export { DEVICE_REVOCATIONS, DeviceRevocations } from './device-revocations.ts';
export { withDeviceAccess, withDeviceSockets } from './device-access.ts';
export { deviceRoutes } from './routes.ts';
export { DeviceInbox, inboxIdOf, BACKLOG } from './device-inbox.ts';
export { DEVICE_FEED, DeviceFeed, deviceFeedOf } from './device-feed.ts';
export { NOTICE_TYPES, type Notice, type NoticeType } from './notices.ts';
