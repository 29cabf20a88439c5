/**
 * Engagements over HTTP (spec 1 rule 4, 2.6, 3 Engagement and Instrument, 4.5, 6, 7), through a
 * real socket, over the memory stores and over NATS + Redis (TEST_STORES).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engagementStanding } from '../../actors/engagements/index.ts';
import { Engagement } from '../../actors/engagements/engagement.ts';
import { identityGate, PASSPORT_KIND, PASSPORT_RESTORED } from '../../actors/identity/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { awaitingExecution, blocklist, CONTRACTOR_FACTS, current, EMPLOYMENT_FACTS, executed, livePassport, openEngagement, parties, post } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const E = (id: string) => `/v1/rail/engagements/${id}`;
const get = (path: string) => h.request('GET', path);
const standing = (worker: string) => engagementStanding(h.platform).isCurrent(h.org, worker);
const eventTypes = async () => ((await get('/v1/rail/events?limit=100')).body.data as Array<{ type: string; data: { id: string } }>);

describe('engagement rules (spec 3 Engagement)', () => {
  it('classification alone confers no rights: a classified engagement is not current, cannot activate, owes nothing yet', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    expect(e).toMatchObject({ object: 'engagement', livemode: false, mocked: false, status: 'classified', classification: 'employment', instrument_in_force_id: null, as_of: null });
    expect(e.id.startsWith('rail_engagement_')).toBe(true);
    expect(e.envelope_id.startsWith('rail_envelope_')).toBe(true);
    expect(standing(p.worker)).toBe(false);
    const a = await post(h, `${E(e.id)}/activate`);
    expect(a.status).toBe(409);
    expect(a.body.error.code).toBe('conflict');
    expect((await get(`${E(e.id)}/envelope`)).body).toMatchObject({ in_force: false, classification: 'employment' });
  });

  it('an unexecuted instrument binds no one: papered and assented by both, the engagement has no instrument in force and no standing', async () => {
    const p = await parties(h);
    const { engagement } = await awaitingExecution(h, p);
    const e = (await get(E(engagement.id))).body;
    expect(e).toMatchObject({ status: 'papered', instrument_in_force_id: null });
    expect(standing(p.worker)).toBe(false);
    expect((await post(h, `${E(e.id)}/activate`)).status).toBe(409);
  });

  it('paper answers with the instrument the parties now assent to (papered_instrument_id); once executed it is the instrument in force', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    const papered = await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment' });
    expect(papered.body).toMatchObject({ status: 'papered', instrument_in_force_id: null });
    const id = papered.body.papered_instrument_id;
    expect(id).toMatch(/^rail_instrument_/);
    for (const [party, ref] of [['engaging_party', p.employer], ['worker', p.worker]]) {
      expect((await post(h, `${E(e.id)}/instruments/${id}/assents`, { party, subject_ref: ref })).status).toBe(201);
    }
    expect((await post(h, `${E(e.id)}/instruments/${id}/execute`)).status).toBe(200);
    expect((await get(E(e.id))).body).toMatchObject({ status: 'executed', instrument_in_force_id: id, papered_instrument_id: null });
  });

  it('a contractor agreement cannot be issued over facts that classify as employment (409), but papers contractor facts', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    const r = await post(h, `${E(e.id)}/instruments`, { template_code: 'ng_contract_for_services' });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/contractor agreement .* cannot be issued over facts that classify as employment/);
    const paperToo = await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_for_services' });
    expect(paperToo.status).toBe(409);
    const c = await openEngagement(h, await parties(h), { facts: CONTRACTOR_FACTS });
    expect(c.classification).toBe('independent_contracting');
    const ok = await post(h, `${E(c.id)}/instruments`, { template_code: 'ng_contract_for_services' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ status: 'drafted', template_code: 'ng_contract_for_services', clause_library_version: '2026.11.1', rule_pack_version: '2026.11.1' });
  });

  it('execute is refused without the assent of both parties (409)', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment' });
    const i = (await get(`/v1/rail/instruments?engagement_id=${e.id}`)).body.data[0];
    expect(i.status).toBe('awaiting_assent');
    const none = await post(h, `${E(e.id)}/execute`);
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/assent of both parties is not complete/);
    expect((await post(h, `${E(e.id)}/instruments/${i.id}/assents`, { party: 'worker', subject_ref: p.worker })).status).toBe(201);
    const one = await post(h, `${E(e.id)}/instruments/${i.id}/execute`);
    expect(one.status).toBe(409);
    expect(one.body.error.message).toMatch(/missing: engaging_party/);
    expect((await get(`${E(e.id)}/instruments/${i.id}`)).body).toMatchObject({ status: 'awaiting_assent', seal: null, executed_at: null });
  });

  it('execute is refused when either party\u2019s passport is not live (both parties need a live passport before anything executes)', async () => {
    for (const who of ['worker', 'employer'] as const) {
      const p = await parties(h);
      const { engagement, instrument } = await awaitingExecution(h, p);
      await blocklist(h, p[who]);
      await h.platform.system.settle();
      const r = await post(h, `${E(engagement.id)}/instruments/${instrument.id}/execute`);
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain(`(${p[who]}) passport is not live`);
      expect((await get(E(engagement.id))).body.status).toBe('papered');
    }
    // and an assent is bound to a live passport
    const p = await parties(h, false);
    await livePassport(h, p.employer);
    const e = await openEngagement(h, p);
    await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment' });
    const i = (await get(`/v1/rail/instruments?engagement_id=${e.id}`)).body.data[0];
    const a = await post(h, `${E(e.id)}/instruments/${i.id}/assents`, { party: 'worker', subject_ref: p.worker });
    expect(a.status).toBe(409);
  });

  it('executed and activated: the standing read is current, the seal is applied, executed_at set, the events are emitted', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await current(h, p);
    expect(instrument).toMatchObject({ status: 'executed', seal: { algorithm: 'sha256' } });
    expect(instrument.seal.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(instrument.executed_at).toBe(instrument.seal.sealed_at);
    expect((await get(E(engagement.id))).body).toMatchObject({ status: 'current', instrument_in_force_id: instrument.id });
    expect(standing(p.worker)).toBe(true);
    await h.platform.system.settle();
    const mine = (await eventTypes()).filter((x) => x.data.id === engagement.id || x.data.id === instrument.id).map((x) => x.type);
    expect(mine).toEqual(expect.arrayContaining(['rail.engagement.classified', 'rail.instrument.executed', 'rail.engagement.executed', 'rail.engagement.activated']));
  });
});

describe('classification (spec 2.6; reference 3.2)', () => {
  it('the rationale shows each factor, its weight and the rule that fired', async () => {
    const e = await openEngagement(h, await parties(h, false), { facts: { ...EMPLOYMENT_FACTS, duration: 'fixed_term' }, ends_on: '2026-12-31' });
    expect(e.classification).toBe('fixed_term_employment');
    const r = (await get(`${E(e.id)}/classification/rationale`)).body;
    expect(r.factors.map((f: { factor: string }) => f.factor)).toEqual(['control', 'integration', 'economic_dependence', 'tools', 'delegation', 'payment_form', 'duration']);
    expect(r.factors[0]).toMatchObject({ factor: 'control', fact: 'engaging_party', weight: 3, direction: 1, contribution: 3 });
    expect(r.rule).toMatchObject({ id: 'ng-eng-c2' });
    expect(r.rule_pack.content_hash).toMatch(/^sha256:/);
    const c = (await get(`${E(e.id)}/classification`)).body;
    expect(c).toMatchObject({ classification: 'fixed_term_employment', review_required: false });
  });

  it('split factors give low confidence and set classification_review_required; a contest sets it too', async () => {
    const split = { control: 'shared', integration: 'ancillary', economic_dependence: 'main_party', tools: 'shared', delegation: 'with_consent', payment_form: 'per_task', duration: 'casual' };
    const e = await openEngagement(h, await parties(h, false), { facts: split });
    expect(e.classification_review_required).toBe(true);
    const c = (await get(`${E(e.id)}/classification`)).body;
    expect(c.review_reasons).toEqual(expect.arrayContaining(['low_confidence', 'factors_split']));
    const clear = await openEngagement(h, await parties(h, false));
    expect(clear.classification_review_required).toBe(false);
    const again = await post(h, `${E(clear.id)}/classify`, { facts: EMPLOYMENT_FACTS, contested: true });
    expect(again.status).toBe(200);
    expect(again.body.classification_review_required).toBe(true);
  });

  it('facts are checked against the rule pack: every failing field is named (400)', async () => {
    const p = await parties(h, false);
    const r = await post(h, '/v1/rail/engagements', { engaging_party_ref: p.employer, worker_ref: p.worker, starts_on: '2026-02-30', ends_on: null, facts: { control: 'nobody' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const fields = r.body.error.validation.entries.map((x: { field: string }) => x.field);
    expect(fields).toEqual(expect.arrayContaining(['/starts_on', '/facts/control', '/facts/tools']));
    const d = await post(h, '/v1/rail/engagements', { engaging_party_ref: p.employer, worker_ref: p.worker, starts_on: '2026-03-01', ends_on: '2026-02-01', facts: EMPLOYMENT_FACTS });
    expect(d.status).toBe(400);
    expect(d.body.error.validation.entries[0]).toMatchObject({ code: 'before_start', field: '/ends_on' });
  });
});

describe('seal chain and verify (spec 2.6 Instrument.seal, InstrumentVerification, 4.5 verify)', () => {
  it('each seal names the previous one of the organisation; verify recomputes it: valid and chain_intact', async () => {
    const a = await executed(h, await parties(h));
    const b = await executed(h, await parties(h));
    expect(b.instrument.seal.previous_hash).toBe(a.instrument.seal.hash);
    const v = await post(h, '/v1/rail/instruments/verify', { hash: b.instrument.seal.hash });
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ object: 'instrument_verification', valid: true, chain_intact: true, instrument_id: b.instrument.id, executed_at: b.instrument.executed_at, superseded_by: null });
  });

  it('an unknown hash is valid false, not an error; an unknown instrument_id is 404', async () => {
    const v = await post(h, '/v1/rail/instruments/verify', { hash: `sha256:${'a'.repeat(64)}` });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ valid: false, chain_intact: false, instrument_id: null, executed_at: null, superseded_by: null });
    expect((await post(h, '/v1/rail/instruments/verify', { hash: 'not a hash' })).body.valid).toBe(false);
    expect((await post(h, '/v1/rail/instruments/verify', { hash: `sha256:${'a'.repeat(64)}`, instrument_id: 'rail_instrument_nope' })).status).toBe(404);
    expect((await post(h, '/v1/rail/instruments/verify', {})).status).toBe(400);
  });

  it('chain_intact is false after a stored instrument is altered underneath (the store is tampered with)', async () => {
    const a = await executed(h, await parties(h));
    const b = await executed(h, await parties(h));
    // forge an assent into a's journal, bypassing the actor
    const stream = `engagements_instrument.${a.instrument.id}`;
    const events = await h.platform.stores.journal.read(stream, 0);
    const last = events[events.length - 1];
    const forged = { ...events.find((x) => x.type === 'instrument.assented')! };
    const data = forged.data as { assent: { subject_ref: string } };
    await h.platform.stores.journal.append(stream, last.version, [
      { ...forged, version: last.version + 1, id: `evt_forged${last.version}x`, data: { ...data, assent: { ...data.assent, subject_ref: 'someone_else' } }, at: h.clock.now() },
    ]);
    const va = await post(h, '/v1/rail/instruments/verify', { hash: a.instrument.seal.hash });
    expect(va.body).toMatchObject({ valid: false, chain_intact: false, instrument_id: a.instrument.id });
    const vb = await post(h, '/v1/rail/instruments/verify', { hash: b.instrument.seal.hash });
    expect(vb.body).toMatchObject({ valid: true, chain_intact: false, instrument_id: b.instrument.id });
    // reconcile finds the broken seal and opens a remediation case
    let findings: Array<{ engagement_id: string; code: string; remediation_case_id: string }> = [];
    for (let after: string | null = null; ; ) {
      const r = await get(`/v1/rail/reconcile?limit=100${after ? `&starting_after=${after}` : ''}`);
      findings = findings.concat(r.body.findings);
      if (!r.body.has_more) break;
      after = r.body.last_engagement_id;
    }
    const f = findings.find((x) => x.engagement_id === a.engagement.id)!;
    expect(f.code).toBe('instrument_seal_broken');
    const kase = await get(`/v1/rail/remediation_cases/${f.remediation_case_id}`);
    expect(kase.body).toMatchObject({ object: 'remediation_case', status: 'open', source: 'reconcile', engagement_id: a.engagement.id });
    const resolved = await post(h, `/v1/rail/remediation_cases/${f.remediation_case_id}/resolve`, { note: 'Restored from the audit bundle.' });
    expect(resolved.body.status).toBe('resolved');
    expect((await post(h, `/v1/rail/remediation_cases/${f.remediation_case_id}/resolve`, { note: 'again' })).status).toBe(409);
  });

  it('the engagement moves by reaction to its instrument\u2019s execution, and every read or move of the engagement sees an execution already answered', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await awaitingExecution(h, p);
    const x = await post(h, `${E(engagement.id)}/instruments/${instrument.id}/execute`);
    expect(x.status).toBe(200);
    expect(x.body).toMatchObject({ id: instrument.id, status: 'executed', seal: { algorithm: 'sha256' } });
    // read at once, whether or not the reaction ran yet
    expect((await get(E(engagement.id))).body).toMatchObject({ status: 'executed', instrument_in_force_id: instrument.id });
    expect((await get(`${E(engagement.id)}/envelope`)).body.in_force).toBe(true);
    await h.platform.system.settle();
    const journal = await h.platform.stores.journal.read(`engagements_engagement.${engagement.id}`, 0);
    expect(journal.filter((e) => e.type === 'engagement.executed')).toHaveLength(1); // one move, by whichever came first
  });

  it('an execution recorded after a dispute was opened keeps the dispute; resolving it returns the engagement to executed', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await awaitingExecution(h, p);
    const d = await post(h, `${E(engagement.id)}/disputes`, { raised_by: 'worker', reason: 'Wages below the agreed rate.' });
    expect(d.status).toBe(201);
    // the reaction to instrument.executed reaching the engagement after the dispute (the seal was taken before it)
    const c = { org: h.org, principal: 'system' };
    await h.platform.system.ask(Engagement, engagement.id, 'instrument_executed', { instrument_id: instrument.id, executed_at: new Date(h.clock.now()).toISOString(), supersedes: null }, c);
    expect((await get(E(engagement.id))).body).toMatchObject({ status: 'disputed', instrument_in_force_id: instrument.id });
    const r = await post(h, `${E(engagement.id)}/disputes/${d.body.id}/resolve`, { outcome: 'dismissed', note: 'Rate confirmed.' });
    expect(r.status).toBe(200);
    expect((await get(E(engagement.id))).body.status).toBe('executed');
  });

  it('two instruments of one organisation executed at once chain one after the other, never fork', async () => {
    const ready = await Promise.all([0, 1, 2, 3, 4].map(async () => awaitingExecution(h, await parties(h))));
    const done = await Promise.all(ready.map((x) => post(h, `${E(x.engagement.id)}/instruments/${x.instrument.id}/execute`)));
    for (const r of done) expect(r.status).toBe(200);
    const seals = done.map((r) => r.body.seal as { hash: string; previous_hash: string });
    const hashes = new Set(seals.map((s) => s.hash));
    const previous = seals.map((s) => s.previous_hash);
    expect(new Set(previous).size).toBe(5);
    // exactly one of them links to a seal outside the batch; the rest link inside it, in one line
    expect(previous.filter((x) => !hashes.has(x))).toHaveLength(1);
    for (const s of seals) expect((await post(h, '/v1/rail/instruments/verify', { hash: s.hash })).body.chain_intact).toBe(true);
  });
});

describe('supersede, expiry, as_of (spec 1 rule 4, 3 Instrument, 2.6 as_of)', () => {
  it('supersede keeps both records linked: the earlier is superseded, the variation supersedes it and comes into force when executed', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await current(h, p);
    const v = await post(h, `${E(engagement.id)}/instruments/${instrument.id}/supersede`, { optional_clauses: ['confidentiality'] });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ status: 'awaiting_assent', supersedes: instrument.id, superseded_by: null });
    const old = (await get(`/v1/rail/instruments/${instrument.id}`)).body;
    expect(old).toMatchObject({ status: 'superseded', superseded_by: v.body.id, seal: instrument.seal });
    for (const [party, ref] of [['engaging_party', p.employer], ['worker', p.worker]]) expect((await post(h, `${E(engagement.id)}/instruments/${v.body.id}/assents`, { party, subject_ref: ref })).status).toBe(201);
    const x = await post(h, `${E(engagement.id)}/instruments/${v.body.id}/execute`);
    expect(x.status).toBe(200);
    expect((await get(E(engagement.id))).body).toMatchObject({ status: 'current', instrument_in_force_id: v.body.id });
    const verifyOld = await post(h, '/v1/rail/instruments/verify', { hash: instrument.seal.hash });
    expect(verifyOld.body).toMatchObject({ valid: true, superseded_by: v.body.id });
    expect((await post(h, `${E(engagement.id)}/instruments/${instrument.id}/supersede`, {})).status).toBe(409);
  });

  it('an unexecuted instrument whose expires_at passes expires by reminder, with the instrument.expired event; the lapse is recorded', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    const expiresAt = new Date(h.clock.now() + 2 * 3_600_000).toISOString();
    expect((await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment', expires_at: expiresAt })).status).toBe(200);
    const i = (await get(`/v1/rail/instruments?engagement_id=${e.id}`)).body.data[0];
    await h.clock.advance(2 * 3_600_000 - 1);
    await h.platform.system.settle();
    expect((await get(`/v1/rail/instruments/${i.id}`)).body.status).toBe('awaiting_assent');
    await h.clock.advance(1);
    await h.platform.system.settle();
    expect((await get(`/v1/rail/instruments/${i.id}`)).body).toMatchObject({ status: 'expired', executed_at: null });
    expect((await get(E(e.id))).body.status).toBe('lapsed');
    const expired = (await eventTypes()).find((x) => x.type === 'instrument.expired' && x.data.id === i.id);
    expect(expired).toBeDefined();
    // papered again with a new instrument
    expect((await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment' })).body.status).toBe('papered');
  });

  it('as_of answers the past from the journal', async () => {
    const p = await parties(h);
    const e = await openEngagement(h, p);
    const opened = new Date(h.clock.now()).toISOString().slice(0, 10);
    await h.clock.advance(3 * 86_400_000);
    await livePassport(h, p.employer);
    await livePassport(h, p.worker);
    const papered = await post(h, `${E(e.id)}/paper`, { template_code: 'ng_contract_of_employment' });
    expect(papered.status).toBe(200);
    const i = (await get(`/v1/rail/instruments?engagement_id=${e.id}`)).body.data[0];
    for (const [party, ref] of [['engaging_party', p.employer], ['worker', p.worker]]) await post(h, `${E(e.id)}/instruments/${i.id}/assents`, { party, subject_ref: ref });
    await post(h, `${E(e.id)}/execute`);
    await post(h, `${E(e.id)}/activate`);
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    const past = await get(`${E(e.id)}?as_of=${opened}`);
    expect(past.body).toMatchObject({ status: 'classified', instrument_in_force_id: null, as_of: opened });
    const now = await get(`${E(e.id)}?as_of=${today}`);
    expect(now.body).toMatchObject({ status: 'current', instrument_in_force_id: i.id, as_of: today });
    expect((await get(`${E(e.id)}?as_of=2020-01-01`)).status).toBe(404);
    expect((await get(`${E(e.id)}?as_of=yesterday`)).status).toBe(400);
  });
});

describe('standing for other modules (spec 6, 7)', () => {
  it('a revoked passport lapses standing and emits the event', async () => {
    const p = await parties(h);
    const { engagement } = await current(h, p);
    expect(standing(p.worker)).toBe(true);
    await blocklist(h, p.worker);
    await h.platform.system.settle();
    const e = (await get(E(engagement.id))).body;
    expect(e.status).toBe('lapsed');
    expect(standing(p.worker)).toBe(false);
    const lapsed = (await eventTypes()).filter((x) => x.type === 'rail.engagement.lapsed' && x.data.id === engagement.id);
    expect(lapsed).toHaveLength(1);
    const audit = (await get(`/v1/rail/audit_entries?record_id=${engagement.id}`)).body.data;
    expect(audit.length).toBeGreaterThan(0);
    // reinstating needs both passports live again
    expect((await post(h, `${E(engagement.id)}/activate`)).status).toBe(409);
  });

  it('a passport that becomes live again does not reinstate lapsed standing by itself: the engagement stays lapsed until activate, which then succeeds', async () => {
    const p = await parties(h);
    const { engagement } = await current(h, p);
    const entry = await blocklist(h, p.worker);
    await h.platform.system.settle();
    expect((await get(E(engagement.id))).body.status).toBe('lapsed');
    const seen: string[] = [];
    const off = h.platform.system.onCommit((c) => {
      if (c.kind === PASSPORT_KIND) seen.push(...c.events.map((e) => e.type));
    });
    const reversed = await post(h, `/v1/identity/blocklist_entries/${entry.id}/reverse`, { reason: 'Mistaken identity.' });
    expect(reversed.status, reversed.text).toBe(200);
    await h.platform.system.settle();
    off();
    expect(seen).toContain(PASSPORT_RESTORED);
    expect(identityGate(h.platform).isLive(h.org, p.worker)).toBe(true);
    // the passport is live again, the standing is not
    expect((await get(E(engagement.id))).body).toMatchObject({ status: 'lapsed', instrument_in_force_id: expect.any(String) });
    expect(standing(p.worker)).toBe(false);
    expect((await eventTypes()).filter((x) => x.type === 'rail.engagement.activated' && x.data.id === engagement.id)).toHaveLength(1);
    const g = (await get('/v1/rail/gating_contract')).body;
    expect(g.reinstated_when).toMatch(/passport\.restored\) does not reinstate/);
    // a person activates: both passports live, the engagement is current again
    const a = await post(h, `${E(engagement.id)}/activate`);
    expect(a.status, a.text).toBe(200);
    expect(a.body.status).toBe('current');
    expect(standing(p.worker)).toBe(true);
  });

  it('the engaging party\u2019s passport ending lapses the engagement too', async () => {
    const p = await parties(h);
    const { engagement } = await current(h, p);
    await blocklist(h, p.employer);
    await h.platform.system.settle();
    expect((await get(E(engagement.id))).body.status).toBe('lapsed');
    expect(standing(p.worker)).toBe(false);
  });

  it('a dispute takes standing away and opens a remediation case; resolving returns the engagement to current', async () => {
    const p = await parties(h);
    const { engagement } = await current(h, p);
    const d = await post(h, `${E(engagement.id)}/disputes`, { raised_by: 'worker', reason: 'Paid per task but supervised daily.', contests_classification: true });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ object: 'engagement_dispute', status: 'open', contests_classification: true });
    const e = (await get(E(engagement.id))).body;
    expect(e).toMatchObject({ status: 'disputed', classification_review_required: true });
    expect(standing(p.worker)).toBe(false);
    await h.platform.system.settle();
    const cases = (await get(`/v1/rail/remediation_cases?engagement_id=${engagement.id}`)).body.data;
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ source: 'dispute', code: 'classification_contested', dispute_id: d.body.id });
    const r = await post(h, `${E(engagement.id)}/disputes/${d.body.id}/resolve`, { outcome: 'dismissed', note: 'Facts confirmed.' });
    expect(r.body).toMatchObject({ status: 'resolved', resolution: { outcome: 'dismissed' } });
    expect((await get(E(engagement.id))).body.status).toBe('current');
    expect(standing(p.worker)).toBe(true);
  });

  it('terminate is final and emits engagement.terminated with the Engagement', async () => {
    const p = await parties(h);
    const { engagement } = await current(h, p);
    const t = await post(h, `${E(engagement.id)}/terminate`, { reason: 'Role closed.' });
    expect(t.body.status).toBe('terminated');
    expect(standing(p.worker)).toBe(false);
    expect((await post(h, `${E(engagement.id)}/terminate`, { reason: 'again' })).status).toBe(409);
    await h.platform.system.settle();
    const ev = (await eventTypes()).find((x) => x.type === 'engagement.terminated' && x.data.id === engagement.id) as unknown as { data: { object: string; status: string } };
    expect(ev.data).toMatchObject({ object: 'engagement', status: 'terminated' });
  });
});

describe('apprenticeship registration (Labour Act s.50; reference 3.4)', () => {
  it('an apprenticeship registers only with the labour officer\u2019s attestation, medical fitness and age evidence, and activates only once registered', async () => {
    const p = await parties(h);
    const { engagement } = await awaitingExecution(h, p, { facts: { ...EMPLOYMENT_FACTS, training_agreement: true } }, 'ng_apprenticeship_contract');
    expect(engagement.classification).toBe('apprenticeship');
    expect((await post(h, `${E(engagement.id)}/execute`)).status).toBe(200);
    expect((await post(h, `${E(engagement.id)}/activate`)).status).toBe(409);
    expect((await post(h, `${E(engagement.id)}/register`, {})).status).toBe(409);
    for (const kind of ['labour_officer', 'medical_fitness', 'age_evidence']) {
      const a = await post(h, `${E(engagement.id)}/attestations`, { kind, reference: `${kind}-001`, attested_by: 'Officer Bello', attested_on: '2026-01-05' });
      expect(a.status).toBe(201);
    }
    expect((await get(`${E(engagement.id)}/attestations`)).body.data).toHaveLength(3);
    expect((await post(h, `${E(engagement.id)}/register`, { registration_reference: 'FMLE-APP-1' })).body.status).toBe('registered');
    expect((await post(h, `${E(engagement.id)}/activate`)).body.status).toBe('current');
  });
});

describe('envelope, copy, audit bundle, clause library (spec 2.6, 4.5)', () => {
  it('the envelope states what is owed, to whom, on what basis, from when and how often, never a figure', async () => {
    const p = await parties(h);
    const { engagement } = await executed(h, p, { employer_facts: { headcount: 12, sector: 'private' } });
    const env = (await get(`${E(engagement.id)}/envelope`)).body;
    expect(env).toMatchObject({ object: 'obligation_envelope', id: engagement.envelope_id, in_force: true, classification: 'employment' });
    const by = Object.fromEntries(env.obligations.map((o: { code: string }) => [o.code, o]));
    expect(by.paye).toMatchObject({ applies: 'yes', frequency: 'monthly', from: '2026-01-05' });
    expect(by.pension.applies).toBe('yes');
    expect(by.itf.applies).toBe('yes');
    expect(by.nhf.applies).toBe('to_be_confirmed');
    for (const o of env.obligations) for (const k of ['authority', 'basis', 'from', 'frequency']) expect(o[k]).toBeTruthy();
    expect(JSON.stringify(env)).not.toMatch(/"amount"|%/);
    const contractor = await openEngagement(h, await parties(h, false), { facts: CONTRACTOR_FACTS, employer_facts: { headcount: 2 } });
    const cenv = (await get(`${E(contractor.id)}/envelope`)).body;
    expect(cenv.obligations.find((o: { code: string }) => o.code === 'paye').applies).toBe('no');
    const small = await openEngagement(h, await parties(h, false), { employer_facts: { headcount: 2, annual_turnover_at_least_50m: false } });
    const senv = (await get(`${E(small.id)}/envelope`)).body;
    expect(senv.obligations.find((o: { code: string }) => o.code === 'pension').applies).toBe('no');
    const list = (await get('/v1/rail/envelopes?limit=2')).body;
    expect(list).toMatchObject({ object: 'list', has_more: true });
    expect(list.data).toHaveLength(2);
    const discharges = (await get(`${E(engagement.id)}/discharges`)).body;
    expect(discharges.data.every((d: { status: string }) => d.status === 'no_evidence')).toBe(true);
  });

  it('the worker\u2019s copy renders the clauses for the engagement with the sealed document', async () => {
    const p = await parties(h);
    const { engagement, instrument } = await executed(h, p);
    const c = (await get(`${E(engagement.id)}/instruments/${instrument.id}/copy`)).body;
    expect(c).toMatchObject({ object: 'instrument_copy', worker_ref: p.worker, seal: instrument.seal });
    expect(c.clauses[0].text).toContain(p.worker);
    expect(JSON.stringify(c)).not.toContain('{{');
    expect((await get(`${E(engagement.id)}/instruments/rail_instrument_nope/copy`)).status).toBe(404);
  });

  it('an audit bundle carries every record, event and seal, verifiable offline with the chain', async () => {
    const { createHash } = await import('node:crypto');
    const canon = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
      if (v !== null && typeof v === 'object') return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`;
      return JSON.stringify(v);
    };
    const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
    const p = await parties(h);
    const { engagement } = await current(h, p);
    const b = await post(h, `${E(engagement.id)}/audit_bundles`);
    expect(b.status).toBe(201);
    const bundle = b.body;
    expect(bundle.engagement.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['engagement.opened', 'engagement.executed', 'engagement.activated']));
    expect(bundle.seals).toHaveLength(1);
    // offline: each seal recomputes, and the chain links from genesis to it
    for (const s of bundle.seals) expect(sha(canon({ algorithm: 'sha256', instrument: s.document, previous_hash: s.seal.previous_hash, sealed_at: s.seal.sealed_at }))).toBe(s.seal.hash);
    expect(bundle.chain[0].previous_hash).toBe(bundle.verification.genesis_previous_hash);
    for (let i = 1; i < bundle.chain.length; i++) expect(bundle.chain[i].previous_hash).toBe(bundle.chain[i - 1].hash);
    expect(bundle.chain.at(-1).hash).toBe(bundle.seals[0].seal.hash);
    const { id: _i, object: _o, livemode: _l, mocked: _m, assembled_at: _a, bundle_hash, ...rest } = bundle;
    expect(sha(canon(rest))).toBe(bundle_hash);
    expect((await get(`${E(engagement.id)}/audit_bundles`)).body.data).toHaveLength(1);
    expect((await get(`${E(engagement.id)}/audit_bundles/${bundle.id}`)).body.bundle_hash).toBe(bundle_hash);
  });

  it('the clause library is served by version; an unknown version is 404', async () => {
    const lib = (await get('/v1/rail/clause_library?version=2026.11.1')).body;
    expect(lib).toMatchObject({ object: 'clause_library', version: '2026.11.1' });
    expect(lib.content_hash).toMatch(/^sha256:/);
    expect(lib.templates.map((t: { code: string }) => t.code)).toContain('ng_contract_for_services');
    expect((await get('/v1/rail/clause_library?version=2020.01.1')).status).toBe(404);
    expect((await get('/v1/rail/clause_library')).body.version).toBe('2026.11.1');
  });
});

describe('lists, organisations, idempotency (spec 2.1, 4, 5.5, 8)', () => {
  it('lists filter by status and classification; a foreign starting_after gives an empty page', async () => {
    const e = await openEngagement(h, await parties(h, false), { facts: CONTRACTOR_FACTS });
    const r = (await get('/v1/rail/engagements?classification=independent_contracting&status=classified&limit=100')).body;
    expect(r.data.map((x: { id: string }) => x.id)).toContain(e.id);
    expect(r.data.every((x: { classification: string; status: string }) => x.classification === 'independent_contracting' && x.status === 'classified')).toBe(true);
    expect((await get('/v1/rail/engagements?limit=0')).status).toBe(400);
    expect((await get('/v1/rail/engagements?status=pending')).status).toBe(400);
    const other = await h.register();
    expect((await h.request('GET', `/v1/rail/engagements?starting_after=${e.id}`, { key: other.key })).body.data).toEqual([]);
  });

  it('another organisation\u2019s engagement is 403 organisation_mismatch', async () => {
    const e = await openEngagement(h, await parties(h, false));
    const other = await h.register();
    const r = await h.request('GET', E(e.id), { key: other.key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('organisation_mismatch');
  });

  it('the same Idempotency-Key and body open one engagement', async () => {
    const p = await parties(h, false);
    const body = { engaging_party_ref: p.employer, worker_ref: p.worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS };
    const key = `same-${process.pid}-${Date.now()}`;
    const [a, b] = await Promise.all([h.request('POST', '/v1/rail/engagements', { body, idempotencyKey: key }), h.request('POST', '/v1/rail/engagements', { body, idempotencyKey: key })]);
    expect(a.body.id).toBe(b.body.id);
    expect((await h.request('POST', '/v1/rail/engagements', { body })).status).toBe(400);
  });

  it('every create route answers 201 Created, and the replay of its Idempotency-Key answers the same status and record', async () => {
    const p = await parties(h);
    let n = 0;
    const twice = async (path: string, body: unknown = {}) => {
      const idempotencyKey = `create-${process.pid}-${Date.now()}-${++n}`;
      const first = await h.request('POST', path, { body, idempotencyKey });
      const again = await h.request('POST', path, { body, idempotencyKey });
      expect(first.status, `${path} ${first.text}`).toBe(201);
      expect(again.status, path).toBe(201);
      expect(again.headers['service-idempotent-replay'], path).toBe('true');
      expect(again.body, path).toEqual(first.body);
      return first.body;
    };
    const e = await twice('/v1/rail/engagements', { engaging_party_ref: p.employer, worker_ref: p.worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS });
    expect(e.object).toBe('engagement');
    const i = await twice(`${E(e.id)}/instruments`, { template_code: 'ng_contract_of_employment' });
    expect(i).toMatchObject({ object: 'instrument', status: 'drafted' });
    expect((await post(h, `${E(e.id)}/paper`, { instrument_id: i.id })).status).toBe(200); // a move of the engagement, not a create
    expect((await twice(`${E(e.id)}/instruments/${i.id}/assents`, { party: 'engaging_party', subject_ref: p.employer })).object).toBe('instrument_assent');
    expect((await twice(`${E(e.id)}/instruments/${i.id}/assents`, { party: 'worker', subject_ref: p.worker })).object).toBe('instrument_assent');
    expect((await post(h, `${E(e.id)}/instruments/${i.id}/execute`)).status).toBe(200);
    expect((await twice(`${E(e.id)}/instruments/${i.id}/supersede`, {})).supersedes).toBe(i.id);
    expect((await twice(`${E(e.id)}/attestations`, { kind: 'witness', reference: 'W-1', attested_by: 'Ada Obi', attested_on: '2026-01-05' })).object).toBe('engagement_attestation');
    expect((await twice(`${E(e.id)}/audit_bundles`)).object).toBe('audit_bundle');
    expect((await twice(`${E(e.id)}/disputes`, { raised_by: 'worker', reason: 'Hours not as agreed.' })).object).toBe('engagement_dispute');
  });

  it('gating_contract and readiness answer', async () => {
    const g = (await get('/v1/rail/gating_contract')).body;
    expect(g).toMatchObject({ object: 'gating_contract', refusal: { code: 'engagement_not_current', status: 422 } });
    const r = (await get('/v1/rail/readiness')).body;
    expect(r).toMatchObject({ ready: true, rule_pack: { version: '2026.11.1' } });
  });
});
