/** Public face of the Accounts area (spec 2.2, 4.1, 5). */
import { AUTHENTICATOR, type Area, keyValue } from '../../kernel/index.ts';
import { events } from './events.ts';
import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { revokeConsoleKeysMintedBefore } from './console-keys.ts';
import { authenticate } from './credential-records.ts';
import { Invitation } from './invitation.ts';
import { OAuthClient } from './oauth-client.ts';
import { Organisation } from './organisation.ts';
import { passwordFigures } from './password-work.ts';
import { RevokedKeys, revokedKeysOf } from './revoked-keys.ts';
import { routes } from './routes.ts';
import { SupportAccess } from './support-access.ts';

export { authenticate, type CredentialRecord } from './credential-records.ts';
export type { Realm } from '../../kernel/index.ts';
export { ALL_SCOPES, CREDENTIAL_HEADERS } from '../../kernel/index.ts';
export { issueClient, revokeClient, grantToken, ACCESS_TOKEN_TTL_MS } from './oauth-clients.ts';
export { recordSupportAccess } from './support-accesses.ts';
export { issueKey, revokeKey } from './api-keys.ts';
/** Device credentials' secrets (spec 4.7); the allocation area issues and revokes the credentials. */
export { storeDeviceSecret, dropDeviceSecret, DEVICE_KEY_PREFIX, type DeviceSecretFor } from './device-secrets.ts';
/** Who is behind a credential, for maker-checker in payroll today and remittance approvals later. */
export { personBehind } from './persons.ts';
export { SESSION_TTL_MS } from './sessions.ts';
export { Organisation, Account, ApiKey, OAuthClient, SupportAccess };

export const area: Area = {
  name: 'accounts',
  kinds: [Organisation, Account, ApiKey, OAuthClient, SupportAccess, Invitation],
  routes,
  events,
  // The gateway asks "who is this?" through the kernel's AUTHENTICATOR, never this area's face.
  async start(platform) {
    platform.system.board.add('accounts', passwordFigures);
    const revoked = new RevokedKeys(platform);
    revoked.start();
    // before the first request: no request is served with a console key that outlives its session
    await revokeConsoleKeysMintedBefore(platform);
    platform.services.provide(AUTHENTICATOR, { authenticate: (auth, headers) => authenticate(keyValue(platform), platform.clock.now(), auth, headers, revoked) });
  },
  async stop(platform) {
    platform.services.remove(AUTHENTICATOR);
    await revokedKeysOf(platform)?.stop();
  },
};
