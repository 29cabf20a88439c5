/**
 * A field worker's day, against a running platform (`npm start`):
 *
 *   BASE_URL=http://127.0.0.1:8080 node --import tsx examples/field-worker-day.ts
 *
 * The organisation registers, the worker consents and is verified (a live passport), an
 * engagement is executed and made current, and the organisation issues the worker's phone a
 * device credential. The phone makes itself available, streams heartbeats over the platform's
 * WebSocket as msgpack frames and subscribes to its offers (docs/gaps.md#allocation "Offers to
 * the device"). A work order is opened nearby; its offer reaches the phone, which accepts it over
 * the socket knowing only what the frame said. The site gets the assignment and its passcodes; the
 * worker walks in, arrives with the start passcode and completes with the completion passcode.
 * The sandbox's dwell minimum is 300 s and this journey takes under a minute, so completion goes
 * to an exception (dwell_too_short, spec 3) and a person upholds it: the proof of service is
 * sealed with that decision. Last, a second offer reaches the phone and the worker's identity is
 * revoked (a blocklist entry): the offer is withdrawn and the phone is told (spec 6).
 *
 * Each step is printed; the script exits 0 only when every step happened, 1 otherwise. Uses fetch,
 * and the project's `ws` and `msgpackr` packages.
 */
import { randomUUID } from 'node:crypto';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';

const BASE = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const WAIT_MS = 15_000;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stepNo = 0;
const step = (what: string) => console.log(`\n${++stepNo}. ${what}`);
const say = (what: string) => console.log(`   ${what}`);

type Json = Record<string, any>;

/** One API call; a refusal ends the journey with its error. */
async function api(method: string, path: string, body?: unknown, key?: string): Promise<Json> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['service-api-key'] = key;
  if (method === 'POST') headers['idempotency-key'] = randomUUID();
  const r = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  const json = text ? (JSON.parse(text) as Json) : {};
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
  return json;
}

/** A reading taken now at a point (spec 2.8 Heartbeat). */
const reading = (p: { latitude: number; longitude: number }) => ({
  recorded_at: new Date().toISOString(),
  position: { ...p, accuracy_metres: 6 },
  connectivity: 'good',
  availability: 'available',
  battery_percent: 76,
  mock_location_detected: false,
  device_integrity_attested: true,
});

/** The worker's phone on the heartbeat socket: answers in order, notices pushed in between. */
class Phone {
  private readonly answers: ((f: Json) => void)[] = [];
  private readonly notices: Json[] = [];
  private waiting: ((n: Json) => void) | undefined;
  lastSequence = 0;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const f = unpackr.unpack(data) as Json;
      if (typeof f.sequence === 'number' && f.type !== 'subscribed') {
        this.lastSequence = Math.max(this.lastSequence, f.sequence);
        say(`phone <- ${f.type} #${f.sequence}${f.offer ? ` offer ${f.offer.id} (${f.offer.status}${f.offer.reason ? `, ${f.offer.reason}` : ''})` : ''}${f.assignment ? ` assignment ${f.assignment.id} (${f.assignment.status})` : ''}`);
        if (this.waiting) this.waiting(f);
        else this.notices.push(f);
        return;
      }
      this.answers.shift()?.(f);
    });
  }

  static open(worker: string, credential: string): Promise<Phone> {
    const url = `${BASE.replace(/^http/, 'ws')}/v1/allocation/heartbeats/stream`;
    const ws = new WebSocket(url, { headers: { 'service-api-key': credential } });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Phone(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`socket refused for ${worker}: ${res.statusCode}`)));
    });
  }

  /** Sends a frame and resolves with its answer; an error frame rejects. */
  send(frame: Json): Promise<Json> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${frame.type ?? 'a batch'} within ${WAIT_MS / 1000} s`)), WAIT_MS);
      this.answers.push((f) => {
        clearTimeout(timer);
        if (f.error) reject(new Error(`${frame.type ?? 'batch'} refused: ${f.error.code} ${f.error.message}`));
        else resolve(f);
      });
      this.ws.send(packr.pack(frame));
    });
  }

  /** The next notice of `type` (earlier ones of other types are passed over). */
  async notice(type: string): Promise<Json> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const held = this.notices.shift();
      const n = held ?? (await new Promise<Json | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
        this.waiting = (x) => {
          clearTimeout(timer);
          this.waiting = undefined;
          resolve(x);
        };
      }));
      if (!n) throw new Error(`the phone was not told ${type} within ${WAIT_MS / 1000} s`);
      if (n.type === type) return n;
    }
  }

  close(): void {
    this.ws.close();
  }
}

async function livePassport(key: string, subject: string): Promise<void> {
  const token = await api('POST', '/v1/identity/consent_tokens', { subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' }, key);
  say(`consent token ${token.id} (${token.status ?? 'active'}) for ${subject}`);
  const v = await api('POST', '/v1/identity/verifications', { subject_ref: subject, consent_token_id: token.id, claims: { full_name: 'Chidi Okafor', date_of_birth: '1990-04-12', government_identifier: '70123456789' } }, key);
  if (v.outcome !== 'resolved') throw new Error(`verification of ${subject}: ${v.outcome}`);
  say(`verification ${v.id}: ${v.outcome}; passport live`);
}

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const site = { latitude: 6.4413, longitude: 3.4216 };
  const north = (metres: number) => ({ latitude: site.latitude + metres / 111_320, longitude: site.longitude });
  const away = north(140); // outside the 100 m geofence and its 25 m slack

  step('The organisation registers and receives its first sandbox key');
  const reg = await api('POST', '/v1/registrations', { organisation_name: `Field Services ${run}`, name: 'Amaka Eze', email: `field.${run}@example.ng`, password: `lagoon-${run}-harmattan-7` });
  const key = reg.api_key.key as string;
  say(`organisation ${reg.organisation.id}`);

  const employer = `employer_${run}`;
  const worker = `wrk_${run}`;
  step('Consent and identity: the employer and the worker reach live passports');
  await livePassport(key, employer);
  await livePassport(key, worker);

  step('An engagement is papered, assented by both parties, executed and made current');
  const facts = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' };
  const e = await api('POST', '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: worker, starts_on: new Date().toISOString().slice(0, 10), ends_on: null, facts }, key);
  await api('POST', `/v1/rail/engagements/${e.id}/paper`, { template_code: 'ng_contract_of_employment' }, key);
  const instrument = (await api('GET', `/v1/rail/instruments?engagement_id=${e.id}`, undefined, key)).data[0];
  for (const [party, ref] of [['engaging_party', employer], ['worker', worker]]) await api('POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/assents`, { party, subject_ref: ref }, key);
  await api('POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/execute`, undefined, key);
  const current = await api('POST', `/v1/rail/engagements/${e.id}/activate`, undefined, key);
  say(`engagement ${e.id}: ${current.status}`);

  step('The organisation issues the worker\u2019s phone a device credential (shown once)');
  const device = await api('POST', '/v1/allocation/device_credentials', { worker_id: worker, name: 'Chidi\u2019s phone' }, key);
  say(`device credential ${device.id}`);

  step('The phone makes the worker available, connects, subscribes to its offers and reports where it is');
  const availability = await api('PUT', `/v1/allocation/availability/${worker}`, { availability: 'available' }, device.key);
  say(`availability: ${availability.availability}`);
  const phone = await Phone.open(worker, device.key);
  const sub = await phone.send({ type: 'subscribe', after_sequence: 0 });
  say(`subscribed at sequence ${sub.sequence}`);
  const receipt = await phone.send({ worker_id: worker, readings: [reading(away)] });
  say(`heartbeat receipt: ${receipt.accepted_count} accepted, presence ${receipt.presence}`);

  const window = { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 4 * 3_600_000).toISOString() };
  step('A work order is opened 140 m away; the offer reaches the phone, which accepts it over the socket');
  const wo = await api('POST', '/v1/allocation/work_orders', { location: { ...site, radius_metres: 100 }, search_radius_metres: 2000, window, headcount: 1, offer_timeout_seconds: 120 }, key);
  say(`work order ${wo.id}: ${wo.status}`);
  const made = await phone.notice('offer.made');
  say(`offer ${made.offer.id} expires at ${made.offer.expires_at}`);
  await phone.send({ type: 'ack', offer_id: made.offer.id });
  const accepted = await phone.send({ type: 'accept', offer_id: made.offer.id });
  say(`accepted: ${accepted.offer.status}`);

  step('The organisation makes the assignment; the site holds its passcodes');
  const asg = await api('POST', '/v1/allocation/assignments', { offer_id: made.offer.id }, key);
  say(`assignment ${asg.id}: ${asg.status}`);
  await phone.notice('assignment.changed');

  step('The worker sets off, walks into the geofence and arrives with the start passcode');
  await api('POST', `/v1/allocation/assignments/${asg.id}/start`, undefined, device.key);
  for (const p of [north(70), site]) {
    await sleep(1500); // a brisk walk: readings far apart in too little time are refused as implausible movement
    await phone.send({ worker_id: worker, readings: [reading(p)] });
  }
  const arrived = await api('POST', `/v1/allocation/assignments/${asg.id}/arrival`, { passcode: asg.passcodes.start }, device.key);
  if (arrived.status !== 'arrived') throw new Error(`arrival: ${arrived.status} ${JSON.stringify(arrived.next_action ?? '')}`);
  say(`arrival: ${arrived.status}`);

  step('The worker stays on site, then completes with the completion passcode');
  for (let i = 0; i < 4; i++) {
    await sleep(1500);
    await phone.send({ worker_id: worker, readings: [reading(site)] });
  }
  const completed = await api('POST', `/v1/allocation/assignments/${asg.id}/completion`, { passcode: asg.passcodes.completion }, device.key);
  say(`completion: ${completed.status}${completed.next_action ? ` (next: ${completed.next_action.code})` : ''}`);
  if (completed.status === 'exception') {
    const exc = await api('GET', `/v1/allocation/exceptions/${completed.exception_id}`, undefined, key);
    say(`exception ${exc.id}: ${exc.conflicting_signals.map((s: Json) => s.name).join(', ')} (the sandbox's dwell minimum is longer than this journey)`);
    const decided = await api('POST', `/v1/allocation/exceptions/${exc.id}/adjudicate`, { outcome: 'upheld', reason: 'The site manager saw the work done.', accepted_signals: ['dwell_too_short'] }, key);
    say(`adjudicated: ${decided.status}`);
  }

  step('Proof of service: the sealed bundle');
  const proof = await api('GET', `/v1/allocation/assignments/${asg.id}/proof`, undefined, key);
  if (!proof.seal?.hash) throw new Error('the proof is not sealed');
  say(`proof of ${proof.assignment_id}: ${proof.readings_used.length} readings, ${proof.geofence_crossings.length} geofence crossing(s), dwell ${proof.dwell_seconds} s, ${proof.passcode_checks.length} passcode checks${proof.exception ? `, exception ${proof.exception.decision.outcome}` : ''}; sealed ${proof.seal.hash.slice(0, 23)}...`);

  step('A second offer reaches the phone; the worker\u2019s identity is revoked and the offer is withdrawn');
  await sleep(1000);
  await phone.send({ worker_id: worker, readings: [reading(site)] });
  const wo2 = await api('POST', '/v1/allocation/work_orders', { location: { ...site, radius_metres: 100 }, search_radius_metres: 2000, window, headcount: 1, offer_timeout_seconds: 120 }, key);
  say(`work order ${wo2.id}: ${wo2.status}`);
  const second = await phone.notice('offer.made');
  const entry = await api('POST', '/v1/identity/blocklist_entries', { subject_ref: worker, reason: 'Identity document reported stolen.' }, key);
  say(`blocklist entry ${entry.id}`);
  const withdrawn = await phone.notice('offer.withdrawn');
  if (withdrawn.offer.id !== second.offer.id) throw new Error(`withdrawn ${withdrawn.offer.id}, expected ${second.offer.id}`);
  say(`offer ${withdrawn.offer.id} withdrawn: ${withdrawn.offer.reason}`);
  const pending = await api('GET', '/v1/allocation/offers?status=pending', undefined, device.key);
  say(`the phone's pending offers: ${pending.data.length}`);
  phone.close();
  console.log('\nThe field worker\u2019s day is complete.');
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`\nThe journey stopped: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
