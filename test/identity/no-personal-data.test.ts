/**
 * No raw personal data out (spec 1 rule 6, 2.1 write-only fields; reference 1.1: a vNIN is never
 * stored). A full scenario through the gateway, then every store is searched (journal, snapshots,
 * key-value, indexes, readings, reminders), with every response, event, audit entry and log line,
 * for the clear identifiers used: none may be found. Memory and local stores are searched record for
 * record (the local family's every database, as LMDB gives them back); over NATS and Redis the
 * journal (the feed, where events live) is searched.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalDatabaseName, LocalStores } from '../../stores/index.ts';
import { storeFamily } from '../../support/stores.ts';
import { startHarness, type Harness, type HttpResponse } from '../../support/http.ts';
import { CLAIMS, consent, ik, subject } from './support.ts';

const NIN_A = '70123456789';
const NIN_B = '31415926530';
const BVN = '22180348250';
const VNIN = 'AB012345678910YZ';
const PHONE_E164 = '+2348098765432';
const PHONE_NATIONAL = '08098765432';
const LOCAL_DATABASES: LocalDatabaseName[] = ['events', 'feed', 'snapshots', 'reminders', 'reminders-due', 'kv', 'kv-expiry', 'index-members', 'index-places', 'readings'];
/** Any stored shape as text: maps, sets and bytes included (a snapshot is bytes: latin1 keeps every byte one character). */
const dumpText = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => {
    if (x instanceof Map) return [...x.entries()];
    if (x instanceof Set) return [...x];
    if (x instanceof Uint8Array) return Buffer.from(x).toString('latin1');
    // a Buffer has already turned itself into { type, data } when the replacer sees it
    if (x?.type === 'Buffer' && Array.isArray(x.data)) return Buffer.from(x.data).toString('latin1');
    return typeof x === 'bigint' ? String(x) : x;
  });
/** What must never appear: each identifier, and the phone's ten national digits in any form. */
const CLEAR = [NIN_A, NIN_B, BVN, VNIN, VNIN.toLowerCase(), '8098765432'];

let h: Harness;
const texts: string[] = [];
const logs: string[] = [];
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await h?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<HttpResponse> {
  const r = await h.request(method, path, { body, idempotencyKey: method === 'POST' ? ik('pd') : undefined });
  texts.push(r.text);
  return r;
}

function found(haystack: string): string[] {
  return CLEAR.filter((c) => haystack.includes(c));
}

describe('no raw personal data out (spec rule 6)', () => {
  it('after a full scenario no store, response, event, audit entry or log line holds a clear identifier', async () => {
    for (const level of ['log', 'info', 'warn', 'error'] as const) vi.spyOn(console, level).mockImplementation((...a: unknown[]) => void logs.push(a.map(String).join(' ')));
    const a = subject('pd_a');
    const b = subject('pd_b');
    const checks = ['government_identifier', 'bank_identifier', 'name_match', 'date_of_birth_match', 'contactability'];
    const ta = await consent(h, a, { checks });
    const tb = await consent(h, b, { checks });
    const va = await call('POST', '/v1/identity/verifications', { subject_ref: a, consent_token_id: ta.id, claims: { ...CLAIMS, government_identifier: NIN_A, bank_identifier: BVN, phone: PHONE_E164 } });
    expect(va.body.outcome).toBe('resolved');
    // the same NIN for a second subject (a merge candidate), a vNIN, a national-format phone, a slow source
    await call('POST', '/v1/identity/verifications', { subject_ref: b, consent_token_id: tb.id, claims: { ...CLAIMS, government_identifier: NIN_A, phone: PHONE_NATIONAL } });
    await call('POST', '/v1/identity/verifications', { subject_ref: b, consent_token_id: tb.id, claims: { ...CLAIMS, government_identifier: VNIN } });
    await call('POST', '/v1/identity/verifications', { subject_ref: b, consent_token_id: tb.id, claims: { ...CLAIMS, government_identifier: '31415926537' } });
    await call('POST', '/v1/identity/verification_batches', { items: [{ subject_ref: b, consent_token_id: tb.id, claims: { government_identifier: NIN_B, bank_identifier: BVN } }, { subject_ref: a, consent_token_id: tb.id, claims: { government_identifier: NIN_A } }] });
    // a refused format echoes nothing back either
    const bad = await call('POST', '/v1/identity/verifications', { subject_ref: a, consent_token_id: ta.id, claims: { government_identifier: `${NIN_A}0` } });
    expect(bad.status).toBe(400);
    await h.clock.advance(10 * 60_000);
    await h.platform.system.settle();
    const cands = await call('GET', '/v1/identity/merge_candidates');
    expect(cands.body.data.length).toBeGreaterThan(0);
    await call('POST', '/v1/identity/merges', { merge_candidate_id: cands.body.data[0].id, reason: 'same person' });
    await call('POST', '/v1/identity/blocklist_entries', { subject_ref: a, reason: 'test' });
    await call('POST', '/v1/identity/disclosures', { subject_ref: a, consent_token_id: ta.id, recipient: 'employer_1', purpose: 'employment_verification' });
    await call('POST', '/v1/identity/subject_requests', { subject_ref: a, kind: 'access' });
    await call('POST', '/v1/identity/subject_requests', { subject_ref: b, kind: 'portability' });
    await h.platform.system.settle();
    for (const path of ['/v1/identity/verifications?limit=100', '/v1/identity/passports?limit=100', '/v1/identity/consent_tokens?limit=100', '/v1/identity/events?limit=100', '/v1/identity/audit_entries?limit=100', '/v1/identity/merge_candidates', '/v1/identity/blocklist_entries', '/v1/identity/disclosures', '/v1/identity/subject_requests']) {
      const r = await call('GET', path);
      expect(r.status).toBe(200);
      for (const rec of r.body.data as { id: string }[]) if (path.startsWith('/v1/identity/verifications')) texts.push((await call('GET', `/v1/identity/verifications/${rec.id}/evidence_bundle`)).text);
    }
    const events = (await call('GET', '/v1/identity/events?limit=100')).body.data;
    expect(events.length).toBeGreaterThan(10);
    // snapshots of every identity actor
    await h.platform.system.passivateIdle(0);

    expect(found(texts.join('\n'))).toEqual([]);
    expect(found(logs.join('\n'))).toEqual([]);
    const feed = await h.platform.stores.journal.readFeed(0, 1_000_000);
    expect(feed.length).toBeGreaterThan(20);
    expect(found(JSON.stringify(feed))).toEqual([]);
    if (storeFamily() === 'local') {
      const local = h.platform.stores as LocalStores;
      const text = LOCAL_DATABASES.map((db) => dumpText([...local.entries(db)])).join('\n');
      expect(text).toContain('identity_passport');
      expect(dumpText([...local.entries('snapshots')])).toContain('identity_passport'); // a snapshot's bytes, read as text
      expect(found(text)).toEqual([]);
      return;
    }
    if (storeFamily() !== 'memory') return;
    // every byte of every memory store
    const s = h.platform.stores as unknown as Record<string, Record<string, unknown>>;
    const dump = dumpText;
    for (const name of ['journal', 'snapshots', 'kv', 'indexes', 'readings', 'reminders']) {
      const text = dump(Object.fromEntries(Object.entries(s[name]!)));
      expect(text.length, name).toBeGreaterThan(2);
      expect(found(text), name).toEqual([]);
    }
    const snapshots = dump(s.snapshots);
    expect(snapshots).toContain('identity_passport');
  });
});
