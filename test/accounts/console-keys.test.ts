/**
 * Console keys minted before `expires_with_session` existed are revoked on upgrade, at start, once
 * (docs/gaps.md#accounts): a key made from a session, named `operator console (<email>)`, with no
 * expires_at. Keys the console makes now (ending with their session) and keys people name otherwise,
 * from a session or with an API key, stay as they are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONSOLE_KEYS_REVOKED, revokeConsoleKeysMintedBefore, UPGRADE_PRINCIPAL } from '../../actors/accounts/console-keys.ts';
import { ManualClock } from '../../runtime/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { localTestStores, storeFamily, tempDir } from '../../support/stores.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

let n = 0;
/** A key made from the harness's session (as the console makes its own). */
async function sessionKey(h: Harness, name: string, session = h.session, expiresWithSession = false) {
  const r = await h.request('POST', '/v1/account/api_keys', { key: null, session, idempotencyKey: `ck-${++n}`, body: expiresWithSession ? { name, expires_with_session: true } : { name } });
  expect(r.status, r.text).toBeLessThan(300);
  return { id: r.body.id as string, key: r.body.key as string };
}

const works = async (h: Harness, key: string) => (await h.request('GET', '/v1/api_keys?limit=1', { key })).status;

/** Keys of every kind the upgrade must tell apart, in two organisations. */
async function keysBeforeUpgrade(h: Harness) {
  const other = await h.register();
  return {
    old: await sessionKey(h, `operator console (${h.registration.email})`),
    oldElsewhere: await sessionKey(h, `operator console (${other.email})`, other.session),
    current: await sessionKey(h, `operator console (${h.registration.email})`, h.session, true),
    named: await sessionKey(h, 'operator console for the night shift'),
    byKey: (await h.request('POST', '/v1/api_keys', { idempotencyKey: `ck-${++n}`, body: { name: 'nightly export' } })).body as { id: string; key: string },
  };
}

describe('console keys minted before expires_with_session - revoked on upgrade, once', () => {
  it('revokes every organisation\'s lasting console keys made from a session and nothing else; a second run revokes nothing', async () => {
    const h = await startHarness();
    harnesses.push(h);
    const k = await keysBeforeUpgrade(h);
    for (const x of Object.values(k)) expect(await works(h, x.key)).toBe(200);
    // as before the upgrade: the marker the harness's own start set is not there yet
    await h.platform.stores.kv.delete(CONSOLE_KEYS_REVOKED);

    expect(await revokeConsoleKeysMintedBefore(h.platform)).toBe(2);
    expect(await works(h, k.old.key)).toBe(401);
    expect(await works(h, k.oldElsewhere.key)).toBe(401);
    for (const x of [k.current, k.named, k.byKey]) expect(await works(h, x.key)).toBe(200);
    const listed = (await h.request('GET', '/v1/api_keys?limit=100')).body.data as { id: string; revoked_at: string | null }[];
    expect(listed.find((x) => x.id === k.old.id)?.revoked_at).toEqual(expect.any(String));
    expect(listed.find((x) => x.id === k.current.id)?.revoked_at).toBeNull();
    expect(UPGRADE_PRINCIPAL).toMatch(/^upgrade:/);

    // once: a key of the old shape made after the upgrade (by hand) is not the upgrade's to revoke
    const later = await sessionKey(h, `operator console (${h.registration.email})`);
    expect(await revokeConsoleKeysMintedBefore(h.platform)).toBe(0);
    expect(await works(h, later.key)).toBe(200);
  });

  it('a key revoked already (by its person at sign-out) is left as it is', async () => {
    const h = await startHarness();
    harnesses.push(h);
    const old = await sessionKey(h, `operator console (${h.registration.email})`);
    const rv = await h.request('POST', `/v1/account/api_keys/${old.id}/revoke`, { key: null, session: h.session, idempotencyKey: `ck-${++n}` });
    expect(rv.status, rv.text).toBe(200);
    await h.platform.stores.kv.delete(CONSOLE_KEYS_REVOKED);
    expect(await revokeConsoleKeysMintedBefore(h.platform)).toBe(0);
    const listed = (await h.request('GET', '/v1/api_keys?limit=100')).body.data as { id: string; revoked_at: string }[];
    expect(listed.find((x) => x.id === old.id)?.revoked_at).toBe(rv.body.revoked_at);
  });

  it.runIf(storeFamily() === 'local')('over the journal on disk: the start after the upgrade revokes them before serving a request, and the next start reads nothing', async () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const first = await startHarness({ clock, stores: localTestStores(clock, { dir, keep: true }) });
    const k = await keysBeforeUpgrade(first);
    await first.platform.stores.kv.delete(CONSOLE_KEYS_REVOKED);
    await first.close();

    const second = await startHarness({ clock, stores: localTestStores(clock, { dir, keep: true }) });
    expect(await works(second, k.old.key)).toBe(401);
    expect(await works(second, k.oldElsewhere.key)).toBe(401);
    for (const x of [k.current, k.named, k.byKey]) expect(await works(second, x.key)).toBe(200);
    const later = await sessionKey(second, `operator console (${second.registration.email})`);
    await second.close();

    const third = await startHarness({ clock, stores: localTestStores(clock, { dir }) });
    harnesses.push(third);
    expect(await works(third, later.key)).toBe(200);
  });
});
