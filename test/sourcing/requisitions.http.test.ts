/**
 * Sourcing over HTTP (spec 2.7, 3 Requisition, 4.6, 7, 9), through a real socket, over the memory
 * stores and (TEST_STORES=cluster) NATS and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { CLEAN_DESCRIPTION, create, fullBody, key, ngn, post, published } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const R = '/v1/sourcing/requisitions';

describe('inferred fields and confirmation (spec 2.7, 3 Requisition)', () => {
  it('fields left out are inferred (occupation from the title, pay period, State, start date) and listed in inferred_fields', async () => {
    const r = await create(h, { job_title: 'Plumber', headcount: 1, compensation: { amount: ngn(15_000_000) }, location: { description: 'Port Harcourt' } });
    expect(r).toMatchObject({ object: 'requisition', livemode: false, mocked: false, status: 'pending_confirmation', version: 1, occupation_code: 'ng-7126', employment_type: 'permanent' });
    expect(r.id.startsWith('flow_enterprise_requisition_')).toBe(true);
    expect(r.compensation).toEqual({ amount: ngn(15_000_000), period: 'monthly', negotiable: false });
    expect(r.location).toEqual({ description: 'Port Harcourt', state: 'NG-RI', geofence_radius_metres: null });
    expect(r.starts_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.inferred_fields.sort()).toEqual(['compensation.period', 'employment_type', 'location.state', 'occupation_code', 'starts_on']);
  });

  it('occupation_code is inferred for any job title: the nearest occupation with its confidence, listed for confirmation, never null', async () => {
    const named = await create(h, { job_title: 'Plumber', headcount: 1 });
    expect(named).toMatchObject({ occupation_code: 'ng-7126', occupation_confidence: 1 });
    const misspelt = await create(h, { job_title: 'Plumbr and pipe fittr', headcount: 1 });
    expect(misspelt.occupation_code).toBe('ng-7126');
    expect(misspelt.occupation_confidence).toBeGreaterThan(0.2);
    expect(misspelt.occupation_confidence).toBeLessThan(1);
    expect(misspelt.inferred_fields).toContain('occupation_code');
    const unlike = await create(h, { job_title: 'Qzx vvv', headcount: 1 });
    expect(unlike.occupation_code).toMatch(/^ng-\d{4}$/);
    expect(unlike.occupation_confidence).toBeLessThan(0.2);
    expect(unlike.inferred_fields).toContain('occupation_code');
    const given = await create(h, { job_title: 'Qzx vvv', headcount: 1, occupation_code: 'ng-7411' });
    expect(given).toMatchObject({ occupation_code: 'ng-7411', occupation_confidence: null });
    expect(given.inferred_fields).not.toContain('occupation_code');
    // accepting keeps how sure the inference was; a correction is the caller's own code
    const accepted = await post(h, `${R}/${misspelt.id}/confirm_inferences`, { confirmations: [{ field: 'occupation_code', accepted: true }] });
    expect(accepted.body).toMatchObject({ occupation_code: 'ng-7126', occupation_confidence: misspelt.occupation_confidence });
    expect(accepted.body.inferred_fields).not.toContain('occupation_code');
    const corrected = await post(h, `${R}/${unlike.id}/confirm_inferences`, { confirmations: [{ field: 'occupation_code', accepted: false, corrected_value: 'ng-7411' }] });
    expect(corrected.body).toMatchObject({ occupation_code: 'ng-7411', occupation_confidence: null });
  });

  it('publish - refused while an inference is unconfirmed, and allowed after confirmation', async () => {
    const r = await create(h, { job_title: 'Security guard', headcount: 4, compensation: { amount: ngn(9_000_000) }, location: { description: 'Wuse, Abuja' } });
    expect(r.status).toBe('pending_confirmation');
    const refused = await post(h, `${R}/${r.id}/publish`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toContain('compensation.period');
    expect(refused.body.error.message).toContain('location.state');
    expect(refused.body.error.message).toContain('starts_on');

    // confirming some of them is not enough
    const partly = await post(h, `${R}/${r.id}/confirm_inferences`, { confirmations: [{ field: 'compensation.period', accepted: true }] });
    expect(partly.status).toBe(200);
    expect(partly.body.status).toBe('pending_confirmation');
    expect((await post(h, `${R}/${r.id}/publish`)).status).toBe(409);

    const rest = await post(h, `${R}/${r.id}/confirm_inferences`, {
      confirmations: [
        { field: 'location.state', accepted: true },
        { field: 'starts_on', accepted: false, corrected_value: '2027-02-01' },
      ],
    });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ status: 'draft', starts_on: '2027-02-01', location: { state: 'NG-FC' } });
    // occupation_code and employment_type do not hold publish (spec 3 names the four that do)
    expect(rest.body.inferred_fields.sort()).toEqual(['employment_type', 'occupation_code']);
    const ok = await post(h, `${R}/${r.id}/publish`);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('published');
  });

  it('confirm_inferences - every refused confirmation is named in the validation report', async () => {
    const r = await create(h, { job_title: 'Driver', headcount: 1, compensation: { amount: ngn(1) } });
    const bad = await post(h, `${R}/${r.id}/confirm_inferences`, {
      confirmations: [
        { field: 'compensation.period', accepted: false, corrected_value: 'weekly' },
        { field: 'location.state', accepted: true },
        { field: 'starts_on', accepted: false, corrected_value: '2027-02-30' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.validation.error_count).toBe(2);
    expect(bad.body.error.validation.entries.map((e: { field: string }) => e.field)).toEqual(['/confirmations/0/corrected_value', '/confirmations/2/corrected_value']);
    // location.state was never inferred here (no location): refused by the record
    const notInferred = await post(h, `${R}/${r.id}/confirm_inferences`, { confirmations: [{ field: 'location.state', accepted: true }] });
    expect(notInferred.status).toBe(400);
    expect(notInferred.body.error.validation.entries[0].code).toBe('not_inferred');
  });

  it('create - bad input gets a 400 naming every failing field, never a 500', async () => {
    const r = await h.request('POST', R, { body: { job_title: '', headcount: 0, compensation: { amount: { amount: 1.5, currency: 'NGN' } } }, idempotencyKey: key() });
    expect(r.status).toBe(400);
    const s = await h.request('POST', R, { body: fullBody({ location: { description: 'Somewhere', state: 'NG-ZZ' } }), idempotencyKey: key() });
    expect(s.status).toBe(400);
    expect(s.body.error.validation.entries[0]).toMatchObject({ code: 'unknown_state', field: '/location/state' });
    const noKey = await h.request('POST', R, { body: fullBody() });
    expect(noKey.status).toBe(400);
  });

  it('list - filtered by status; read with ?version= refuses a version that does not exist with 404', async () => {
    const r = await create(h, fullBody());
    const list = await h.request('GET', `${R}?status=draft&limit=100`);
    expect(list.body.object).toBe('list');
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(r.id);
    expect(list.body.data.every((x: { status: string }) => x.status === 'draft')).toBe(true);
    expect((await h.request('GET', `${R}/${r.id}?version=2`)).status).toBe(404);
    const other = await h.register();
    expect((await h.request('GET', `${R}/${r.id}`, { key: other.key })).status).toBe(403);
  });
});

describe('fair-hiring screening (reference 4.2)', () => {
  it('a blocking rule quarantines with a QuarantineFinding; publish is refused; a person decides a contest, recorded', async () => {
    const r = await create(h, fullBody({ description: `${CLEAN_DESCRIPTION} Indigenes of Anambra State only.` }));
    expect(r.status).toBe('quarantined');
    expect(r.quarantine).toEqual({ rule_code: 'NG-ORI-01', rule_pack_version: '2026.11.1', detail: expect.stringContaining('s.42(1)'), contested: false, offending_text: 'Indigenes of Anambra State only' });
    expect((await post(h, `${R}/${r.id}/publish`)).status).toBe(409);
    const contested = await post(h, `${R}/${r.id}/contest`, { reason: 'A State civil service role under federal character (s.14(3)).' });
    expect(contested.body).toMatchObject({ status: 'under_review', quarantine: { contested: true } });
    const released = await post(h, `${R}/${r.id}/adjudicate`, { outcome: 'released', reason: 'Public employer; federal character applies.' });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ status: 'draft', quarantine: null });
    expect(released.body.quarantine_reviews[0]).toMatchObject({ outcome: 'released', finding: { rule_code: 'NG-ORI-01', contested: true }, reason: 'Public employer; federal character applies.' });
    expect(released.body.quarantine_reviews[0].decided_by).toBeTruthy();
    expect((await post(h, `${R}/${r.id}/adjudicate`, { outcome: 'upheld', reason: 'again' })).status).toBe(409);
  });

  it('a warning rule is reported with its neutral rewrite and does not hold publish', async () => {
    const r = await create(h, fullBody({ description: `${CLEAN_DESCRIPTION} Ladies only. Attach a full-length photograph.` }));
    expect(r.status).toBe('draft');
    expect(r.warnings.map((w: { rule_code: string }) => w.rule_code)).toEqual(['NG-SEX-01', 'NG-PHO-01']);
    expect(r.warnings[0]).toMatchObject({ severity: 'warn', offending_text: 'Ladies only', suggested_rewrite: 'Open to all genders.', field: 'description' });
    expect((await post(h, `${R}/${r.id}/publish`)).status).toBe(200);
  });

  it('an edited artefact is screened too: a fee in the advert quarantines the requisition', async () => {
    const r = await create(h, fullBody());
    const a = await h.request('GET', `${R}/${r.id}/artefacts`);
    expect(a.body.advert.text).toContain('Electrician');
    expect(a.body.variants.find((v: { channel_id: string }) => v.channel_id === 'flow_channel_whatsapp').max_length).toBe(1024);
    const edited = await h.request('PATCH', `${R}/${r.id}/artefacts`, { body: { advert: 'Electrician wanted. Pay a registration fee of N2,000 at the gate.' } });
    expect(edited.status).toBe(200);
    expect(edited.body.advert).toMatchObject({ edited: true });
    const after = (await h.request('GET', `${R}/${r.id}`)).body;
    expect(after.quarantine).toMatchObject({ rule_code: 'NG-FEE-01', offending_text: 'registration fee' });
  });
});

describe('versions, broadcasts and leads (spec 3, 4.6, 9)', () => {
  it('an edit after broadcast makes a new version and existing leads keep theirs', async () => {
    const r = await published(h, { requirements: { min_experience_years: 3, skills: [], licences: [], within_state: false, notes: null } });
    // an edit before any broadcast changes version 1 in place
    const inPlace = await h.request('PATCH', `${R}/${r.id}`, { body: { headcount: 3 } });
    expect(inPlace.body).toMatchObject({ version: 1, headcount: 3, status: 'published' });
    const b = await post(h, `${R}/${r.id}/broadcasts`, { channel_ids: ['flow_channel_myjobmag'], budget: ngn(500_000) });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ object: 'broadcast', requisition_version: 1 });
    const lead = await post(h, '/v1/sourcing/leads', { requisition_id: r.id, delivery_id: b.body.deliveries[0].id, external_ref: `mjm-${key()}`, candidate: { full_name: 'Adaeze Okafor', experience_years: 4 } });
    expect(lead.status).toBe(201);
    expect(lead.body).toMatchObject({ object: 'lead', requisition_version: 1, channel_id: 'flow_channel_myjobmag', screening: { outcome: 'meets' } });

    const v2 = await h.request('PATCH', `${R}/${r.id}`, { body: { requirements: { min_experience_years: 6 }, description: `${CLEAN_DESCRIPTION} Night shifts.` } });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, latest_version: 2, status: 'published', requirements: { min_experience_years: 6 } });
    const v1 = await h.request('GET', `${R}/${r.id}?version=1`);
    expect(v1.body).toMatchObject({ version: 1, latest_version: 2, description: CLEAN_DESCRIPTION, requirements: { min_experience_years: 3 } });
    const kept = await h.request('GET', `/v1/sourcing/leads/${lead.body.id}`);
    expect(kept.body).toMatchObject({ requisition_version: 1, screening: { outcome: 'meets' } });
    // a lead to a broadcast of version 2 is screened against version 2
    const b2 = await post(h, `${R}/${r.id}/broadcasts`, { channel_ids: ['flow_channel_jobberman'], budget: ngn(0) });
    expect(b2.body.requisition_version).toBe(2);
    const late = await post(h, '/v1/sourcing/leads', { requisition_id: r.id, delivery_id: b2.body.deliveries[0].id, candidate: { full_name: 'Tunde Bello', experience_years: 4 } });
    expect(late.body).toMatchObject({ requisition_version: 2, screening: { outcome: 'does_not_meet' } });
  });

  it('a broadcast over the spend ceiling is refused before any charge; within it, it is reserved', async () => {
    const other = await h.register();
    const k = { key: other.key };
    const ceiling = await h.request('POST', '/v1/sourcing/spend_ceilings', { ...k, body: { amount: ngn(1_000_000) }, idempotencyKey: key() });
    expect(ceiling.status).toBe(200);
    expect(ceiling.body).toMatchObject({ object: 'spend_ceiling', ceiling: ngn(1_000_000), committed: ngn(0), remaining: ngn(1_000_000) });
    const c = await h.request('POST', R, { ...k, body: fullBody(), idempotencyKey: key() });
    await h.request('POST', `${R}/${c.body.id}/publish`, { ...k, idempotencyKey: key() });
    const first = await h.request('POST', `${R}/${c.body.id}/broadcasts`, { ...k, body: { channel_ids: ['flow_channel_myjobmag'], budget: ngn(700_000) }, idempotencyKey: key() });
    expect(first.status).toBe(201);
    const over = await h.request('POST', `${R}/${c.body.id}/broadcasts`, { ...k, body: { channel_ids: ['flow_channel_whatsapp'], budget: ngn(300_001) }, idempotencyKey: key() });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('conflict');
    expect(over.body.error.message).toContain('spend ceiling');
    const after = await h.request('GET', `/v1/sourcing/spend_ceilings/${ceiling.body.id}`, k);
    expect(after.body).toMatchObject({ committed: ngn(700_000), remaining: ngn(300_000), reservation_count: 1 });
    const exact = await h.request('POST', `${R}/${c.body.id}/broadcasts`, { ...k, body: { channel_ids: ['flow_channel_whatsapp'], budget: ngn(300_000) }, idempotencyKey: key() });
    expect(exact.status).toBe(201);
    // nothing was sent for the refused broadcast
    const deliveries = await h.request('GET', '/v1/sourcing/deliveries?limit=100', k);
    expect(deliveries.body.data).toHaveLength(2);
    // each is read by its id; an id of another form is no delivery (spec 7, kernel/path-ids.ts)
    const one = deliveries.body.data[0];
    expect((await h.request('GET', `/v1/sourcing/deliveries/${one.id}`, k)).body).toMatchObject({ id: one.id, object: one.object });
    const wrong = await h.request('GET', `/v1/sourcing/deliveries/${ceiling.body.id}`, k);
    expect([wrong.status, wrong.body.error.code]).toEqual([404, 'not_found']);
  });

  it('a broadcast sent again with its Idempotency-Key is the same broadcast, its budget reserved once (spec 8)', async () => {
    const other = await h.register();
    const k = { key: other.key };
    const c = await h.request('POST', R, { ...k, body: fullBody(), idempotencyKey: key() });
    await h.request('POST', `${R}/${c.body.id}/publish`, { ...k, idempotencyKey: key() });
    const ik = key();
    const body = { channel_ids: ['flow_channel_myjobmag'], budget: ngn(40_000) };
    const a = await h.request('POST', `${R}/${c.body.id}/broadcasts`, { ...k, body, idempotencyKey: ik });
    const b = await h.request('POST', `${R}/${c.body.id}/broadcasts`, { ...k, body, idempotencyKey: ik });
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers['service-idempotent-replay']).toBe('true');
    const ceilings = await h.request('GET', '/v1/sourcing/spend_ceilings', k);
    expect(ceilings.body.data).toHaveLength(1);
    expect(ceilings.body.data[0]).toMatchObject({ ceiling: null, committed: ngn(40_000), reservation_count: 1 });
  });

  it('a channel that times out is retried by a durable reminder and every attempt is recorded', async () => {
    const r = await published(h);
    const b = await post(h, `${R}/${r.id}/broadcasts`, { channel_ids: ['flow_channel_sandboxflaky', 'flow_channel_sandboxtimeout', 'flow_channel_linkedin'], budget: ngn(0) });
    await h.platform.system.settle();
    const byChannel = async () => {
      const g = await h.request('GET', `/v1/sourcing/broadcasts/${b.body.id}`);
      return Object.fromEntries(g.body.deliveries.map((d: { channel_id: string }) => [d.channel_id, d])) as Record<string, any>;
    };
    let d = await byChannel();
    expect(d.flow_channel_sandboxflaky).toMatchObject({ status: 'retrying', attempts: 1, last_outcome: 'timed_out' });
    expect(d.flow_channel_linkedin).toMatchObject({ status: 'failed', attempts: 1, last_outcome: 'refused' });
    const due = Date.parse(d.flow_channel_sandboxflaky.next_attempt_at) - h.clock.now();
    expect(due).toBe(30_000);

    await h.clock.advance(29_999);
    await h.platform.system.settle();
    expect((await byChannel()).flow_channel_sandboxflaky.attempts).toBe(1);
    await h.clock.advance(1);
    await h.platform.system.settle();
    d = await byChannel();
    expect(d.flow_channel_sandboxflaky).toMatchObject({ status: 'delivered', attempts: 2, last_outcome: 'accepted' });
    expect(d.flow_channel_sandboxflaky.attempt_log.map((a: { outcome: string }) => a.outcome)).toEqual(['timed_out', 'accepted']);

    // the channel that always times out uses its whole schedule (30 s, 2 min, 10 min, 1 h), then fails
    for (const s of [30, 120, 600, 3600]) {
      await h.clock.advance(s * 1000);
      await h.platform.system.settle();
    }
    d = await byChannel();
    expect(d.flow_channel_sandboxtimeout).toMatchObject({ status: 'failed', attempts: 5, last_outcome: 'timed_out' });
    const g = await h.request('GET', `/v1/sourcing/broadcasts/${b.body.id}`);
    expect(g.body.status).toBe('partially_delivered');

    // a person retries the failed delivery: a new attempt, recorded
    const retry = await post(h, `/v1/sourcing/broadcasts/${b.body.id}/deliveries/${d.flow_channel_sandboxtimeout.id}/retry`);
    expect(retry.status).toBe(200);
    await h.platform.system.settle();
    d = await byChannel();
    expect(d.flow_channel_sandboxtimeout).toMatchObject({ status: 'retrying', attempts: 6 });
    expect((await post(h, `/v1/sourcing/broadcasts/${b.body.id}/deliveries/${d.flow_channel_sandboxflaky.id}/retry`)).status).toBe(409);
  });

  it('a broadcast of a requisition that is not published is refused with 409', async () => {
    const r = await create(h, fullBody());
    const b = await post(h, `${R}/${r.id}/broadcasts`, { channel_ids: ['flow_channel_myjobmag'], budget: ngn(0) });
    expect(b.status).toBe(409);
    const unknown = await post(h, `${R}/${r.id}/broadcasts`, { channel_ids: ['flow_channel_nosuch'], budget: ngn(0) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.validation.entries[0]).toMatchObject({ code: 'unknown_channel', field: '/channel_ids/0' });
  });

  it('a promoted lead can be verified by the identity module', async () => {
    const r = await published(h);
    const lead = await post(h, '/v1/sourcing/leads', { requisition_id: r.id, channel_id: 'flow_channel_whatsapp', candidate: { full_name: 'Chinedu Eze', phone: '+2348030000000', experience_years: 5, skills: ['wiring'] } });
    expect(lead.body.screening.outcome).toBe('meets');
    const promoted = await post(h, `/v1/sourcing/leads/${lead.body.id}/promote`);
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ status: 'promoted' });
    const subject = promoted.body.subject_ref;
    expect(subject.startsWith('flow_subject_')).toBe(true);
    expect((await post(h, `/v1/sourcing/leads/${lead.body.id}/promote`)).status).toBe(409);

    const consent = await post(h, '/v1/identity/consent_tokens', { subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match', 'contactability'], wording_version: 'v1' });
    expect(consent.status, JSON.stringify(consent.body)).toBe(201);
    const v = await post(h, '/v1/identity/verifications', {
      subject_ref: subject,
      consent_token_id: consent.body.id,
      claims: { full_name: 'Chinedu Eze', date_of_birth: '1990-04-12', phone: '+2348030000000', government_identifier: '70123456789' },
    });
    expect(v.status, JSON.stringify(v.body)).toBeLessThan(300);
    expect(v.body, JSON.stringify(v.body)).toMatchObject({ subject_ref: subject, outcome: 'resolved', assurance_reached: 'dal_2' });
    expect(v.body.passport_id.startsWith('anchor_pro_passport_')).toBe(true);
  });

  it('a lead that does not meet the requirements is promoted only with an override_reason', async () => {
    const r = await published(h, { requirements: { min_experience_years: 3, skills: ['wiring'], licences: [], within_state: true, notes: null } });
    const lead = await post(h, '/v1/sourcing/leads', { requisition_id: r.id, candidate: { full_name: 'Musa Ali', experience_years: 1, skills: ['Wiring'], state: 'NG-KN' } });
    expect(lead.body.screening).toMatchObject({ outcome: 'does_not_meet' });
    expect(lead.body.screening.checks.map((c: { requirement: string; outcome: string }) => `${c.requirement}=${c.outcome}`)).toEqual(['min_experience_years=not_met', 'skills:wiring=met', 'within_state=not_met']);
    expect((await post(h, `/v1/sourcing/leads/${lead.body.id}/promote`)).status).toBe(409);
    const p = await post(h, `/v1/sourcing/leads/${lead.body.id}/promote`, { override_reason: 'Apprentice route agreed with the site lead.' });
    expect(p.body.promotion).toMatchObject({ override_reason: 'Apprentice route agreed with the site lead.' });
  });
});

describe('imports, channels, taxonomies, events', () => {
  it('imports - a CSV of requisitions is all or nothing; a blank headcount is inferred and holds publish', async () => {
    const bad = await post(h, '/v1/sourcing/imports', { kind: 'requisitions', csv: 'job_title,headcount,state\nCleaner,x,NG-LA\n,2,\n' });
    expect(bad.status).toBe(201);
    expect(bad.body).toMatchObject({ object: 'sourcing_import', status: 'rejected', rows: [] });
    expect(bad.body.validation.entries.map((e: { index: number; code: string }) => `${e.index}:${e.code}`)).toEqual(['1:invalid_value', '1:required', '2:required']);
    const ok = await post(h, '/v1/sourcing/imports', { kind: 'requisitions', csv: 'job_title,headcount,location,compensation_amount\nCleaner,,"Yaba, Lagos",6000000\nWelder,2,Kano,\n' });
    expect(ok.body).toMatchObject({ status: 'completed', validation: { entry_count: 2, error_count: 0 } });
    const first = (await h.request('GET', `${R}/${ok.body.rows[0].id}`)).body;
    expect(first).toMatchObject({ status: 'pending_confirmation', headcount: 1, occupation_code: 'ng-9112', location: { state: 'NG-LA' } });
    expect(first.inferred_fields).toContain('headcount');
    expect((await h.request('GET', `/v1/sourcing/imports/${ok.body.id}`)).body.id).toBe(ok.body.id);
  });

  it('imports - a CSV of leads is screened row by row against its requisition', async () => {
    const r = await published(h);
    const ok = await post(h, '/v1/sourcing/imports', { kind: 'leads', csv: `requisition_id,full_name,experience_years,skills\n${r.id},Ngozi Obi,5,wiring\n${r.id},Bola Ade,1,\n` });
    expect(ok.body.status).toBe('completed');
    const leads = await h.request('GET', `/v1/sourcing/leads?requisition_id=${r.id}`);
    expect(leads.body.data.map((l: { screening: { outcome: string } }) => l.screening.outcome).sort()).toEqual(['does_not_meet', 'meets']);
  });

  it('channels, the taxonomy and the rule pack are readable; sourcing events are listed under the module', async () => {
    const ch = await h.request('GET', '/v1/sourcing/channels');
    expect(ch.body.data.map((c: { sandbox_behaviour: string }) => c.sandbox_behaviour)).toEqual(expect.arrayContaining(['accepts', 'refuses', 'times_out']));
    expect((await h.request('GET', '/v1/sourcing/channels/flow_channel_linkedin')).body).toMatchObject({ object: 'channel', sandbox_behaviour: 'refuses' });
    expect((await h.request('GET', '/v1/sourcing/channels/flow_channel_nosuch')).status).toBe(404);
    const t = await h.request('GET', '/v1/sourcing/taxonomies/flow_taxonomy_ngocc2026111');
    expect(t.body).toMatchObject({ object: 'taxonomy', version: '2026.11.1', in_use: true });
    expect(t.body.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const pack = await h.request('GET', '/v1/sourcing/rule_packs/current');
    expect(pack.body).toMatchObject({ version: '2026.11.1', rule_count: 23 });
    await published(h);
    await h.platform.system.settle();
    const ev = await h.request('GET', '/v1/sourcing/events?limit=100');
    expect(ev.status).toBe(200);
    expect(ev.body.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['flow.requisition.created', 'flow.requisition.published']));
    expect(ev.body.data.every((e: { source: string }) => e.source === 'flow')).toBe(true);
  });
});
