/**
 * The operator console's keys made before `expires_with_session` existed (docs/gaps.md#accounts).
 * The console then made a key from the person's session that lasted until revoked, so a tab closed
 * without signing out left a live key. Such a key is recognisable in the journal by what the console
 * always sent: made from a session (it records its person), named `operator console (<email>)`, and
 * no `expires_at`. The console never makes one so again, so these are revoked once, at the start
 * after the upgrade; a marker in the key-value store keeps later starts from reading the journal for
 * them. Nodes starting together may both revoke: a key revoked already is left as it is.
 */
import { ApiError, journalFeed, keyValue, logOf, type Platform } from '../../kernel/index.ts';
import { ApiKey } from './api-key.ts';
import { revokeKey } from './api-keys.ts';

/** The name the console gave every key it made (console/api.js). */
export const CONSOLE_KEY_NAME = /^operator console \(.*\)$/;
/** Set once the console's lasting keys are revoked; a start that finds it reads nothing. */
export const CONSOLE_KEYS_REVOKED = 'accounts:upgrade:console_keys_revoked';
/** The principal the revocations are recorded as (their audit entries name it). */
export const UPGRADE_PRINCIPAL = 'upgrade:console_keys';

const FEED_PAGE = 1000;
const STREAM = `${ApiKey.kind}.`;

interface Created {
  name?: string;
  person?: string | null;
  expires_at?: string | null;
}

/** The console's keys that last until revoked and are not revoked, by id with their organisation. */
async function lastingConsoleKeys(platform: Platform): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let after = 0; ; ) {
    const page = await journalFeed(platform, after, FEED_PAGE);
    if (page.length === 0) return found;
    for (const { stream, event } of page) {
      if (!stream.startsWith(STREAM)) continue;
      const id = stream.slice(STREAM.length);
      if (event.type === 'api_key.revoked') found.delete(id);
      else if (event.type === 'api_key.created') {
        const c = event.data as Created;
        if (typeof c.name === 'string' && CONSOLE_KEY_NAME.test(c.name) && c.person && !c.expires_at) found.set(id, event.org);
      }
    }
    after = page[page.length - 1].position;
  }
}

/** Revokes the console's lasting keys unless done before; answers how many this call revoked. */
export async function revokeConsoleKeysMintedBefore(platform: Platform): Promise<number> {
  const kv = keyValue(platform);
  if (await kv.get(CONSOLE_KEYS_REVOKED)) return 0;
  let revoked = 0;
  for (const [id, org] of await lastingConsoleKeys(platform)) {
    try {
      await revokeKey(platform, { org, livemode: false, principal: UPGRADE_PRINCIPAL }, id);
      revoked++;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'conflict')) throw e;
    }
  }
  await kv.set(CONSOLE_KEYS_REVOKED, new Date(platform.clock.now()).toISOString());
  if (revoked) logOf('accounts').info(`revoked ${revoked} operator console key(s) made before they ended with their session`);
  return revoked;
}
