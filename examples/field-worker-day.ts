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
 * Each step is printed; the script exits 0 only when every step happened, 1 otherwise. It runs on
 * the platform's client libraries, as an integrator's backend and a phone app would: the
 * TypeScript client (clients/typescript) for the organisation's calls, and the device library
 * (clients/device) for the phone, over the project's `ws` package.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { Device, type Notice, type WebSocketLike } from '../clients/device/src/index.ts';
import { createClient, type Client } from '../clients/typescript/src/index.ts';

const BASE = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const WAIT_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stepNo = 0;
const step = (what: string) => console.log(`\n${++stepNo}. ${what}`);
const say = (what: string) => console.log(`   ${what}`);

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

/** The worker's phone: the device library, with what the journey waits for (a notice, a receipt). */
class Phone {
  private readonly notices: Notice[] = [];
  private waiting: (() => void) | undefined;
  readonly device: Device;

  constructor(worker: string, credential: string) {
    this.device = new Device({ baseUrl: BASE, credential, workerId: worker, webSocket: (url, headers) => new WebSocket(url, { headers }) as unknown as WebSocketLike });
    this.device.on('notice', (n) => {
      say(`phone <- ${n.type} #${n.sequence}${n.offer ? ` offer ${n.offer.id} (${n.offer.status}${n.offer.reason ? `, ${n.offer.reason}` : ''})` : ''}${n.assignment ? ` assignment ${n.assignment.id} (${n.assignment.status})` : ''}`);
      this.notices.push(n);
      this.waiting?.();
    });
    this.device.on('receipt', (r) => say(`heartbeat receipt: ${r.accepted_count} accepted, presence ${r.presence}`));
    this.device.on('refused', (e) => say(`a batch was refused: ${e.code} ${e.message}`));
  }

  /** Until `done` holds, or the journey's patience runs out. */
  private async until(what: string, done: () => boolean): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${what} within ${WAIT_MS / 1000} s`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  connected(): Promise<void> {
    return this.until('the phone did not connect', () => this.device.connected);
  }

  /** Records a reading and waits for its receipt. */
  async report(p: { latitude: number; longitude: number }): Promise<void> {
    this.device.record(reading(p));
    await this.until('a reading was not receipted', () => this.device.backlog.readings === 0);
  }

  /** The next notice of `type` (earlier ones of other types are passed over). */
  async notice(type: string): Promise<Notice> {
    let found: Notice | undefined;
    await this.until(`the phone was not told ${type}`, () => {
      while (!found && this.notices.length) {
        const n = this.notices.shift()!;
        if (n.type === type) found = n;
      }
      return found !== undefined;
    });
    return found!;
  }
}

async function livePassport(client: Client, subject: string): Promise<void> {
  const token = await client.identity.consentTokens.create({ subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' });
  say(`consent token ${token.id} (${token.status ?? 'active'}) for ${subject}`);
  const v = await client.identity.verifications.create({ subject_ref: subject, consent_token_id: token.id, claims: { full_name: 'Chidi Okafor', date_of_birth: '1990-04-12', government_identifier: '70123456789' } });
  if (v.outcome !== 'resolved') throw new Error(`verification of ${subject}: ${v.outcome}`);
  say(`verification ${v.id}: ${v.outcome}; passport live`);
}

type Point = { latitude: number; longitude: number };
type Window = { starts_at: string; ends_at: string };

async function registerOrganisation(run: string): Promise<Client> {
  step('The organisation registers and receives its first sandbox key');
  const reg = await createClient({ baseUrl: BASE }).registrations.create({ organisation_name: `Field Services ${run}`, name: 'Amaka Eze', email: `field.${run}@example.ng`, password: `lagoon-${run}-harmattan-7` });
  say(`organisation ${reg.organisation.id}`);
  return createClient({ baseUrl: BASE, apiKey: reg.api_key.key });
}

async function engage(org: Client, employer: string, worker: string): Promise<void> {
  step('An engagement is papered, assented by both parties, executed and made current');
  const facts = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' } as const;
  const e = await org.rail.engagements.create({ engaging_party_ref: employer, worker_ref: worker, starts_on: new Date().toISOString().slice(0, 10), ends_on: null, facts });
  await org.rail.engagements.paper(e.id, { template_code: 'ng_contract_of_employment' });
  const instrument = (await org.rail.instruments.list({ engagement_id: e.id })).data[0];
  for (const [party, ref] of [['engaging_party', employer], ['worker', worker]] as const) await org.rail.engagements.instruments.assents.create(e.id, instrument.id, { party, subject_ref: ref });
  await org.rail.engagements.instruments.execute(e.id, instrument.id);
  const current = await org.rail.engagements.activate(e.id);
  say(`engagement ${e.id}: ${current.status}`);
}

async function connectPhone(org: Client, worker: string, at: Point): Promise<{ phone: Phone; asWorker: Client }> {
  step('The organisation issues the worker\u2019s phone a device credential (shown once)');
  const credential = await org.allocation.deviceCredentials.create({ worker_id: worker, name: 'Chidi\u2019s phone' });
  say(`device credential ${credential.id}`);
  step('The phone makes the worker available, connects, subscribes to its offers and reports where it is');
  const phone = new Phone(worker, credential.key);
  const availability = await phone.device.setAvailability('available');
  say(`availability: ${availability.availability}`);
  phone.device.start();
  await phone.connected();
  await phone.report(at);
  return { phone, asWorker: createClient({ baseUrl: BASE, apiKey: credential.key }) };
}

async function offerAndAssign(org: Client, phone: Phone, site: Point, window: Window) {
  step('A work order is opened 140 m away; the offer reaches the phone, which accepts it over the socket');
  const wo = await org.allocation.workOrders.create({ location: { ...site, radius_metres: 100 }, search_radius_metres: 2000, window, headcount: 1, offer_timeout_seconds: 120 });
  say(`work order ${wo.id}: ${wo.status}`);
  const made = await phone.notice('offer.made');
  say(`offer ${made.offer!.id} expires at ${made.offer!.expires_at}`);
  const accepted = await phone.device.accept(made.offer!.id);
  say(`accepted: ${accepted.status}`);

  step('The organisation makes the assignment; the site holds its passcodes');
  const asg = await org.allocation.assignments.create({ offer_id: made.offer!.id });
  say(`assignment ${asg.id}: ${asg.status}`);
  await phone.notice('assignment.changed');
  return asg;
}

async function arriveAndComplete(org: Client, asWorker: Client, phone: Phone, asg: Awaited<ReturnType<typeof offerAndAssign>>, path: Point[]): Promise<void> {
  step('The worker sets off, walks into the geofence and arrives with the start passcode');
  await asWorker.allocation.assignments.start(asg.id);
  for (const p of path) {
    await sleep(1500); // a brisk walk: readings far apart in too little time are refused as implausible movement
    await phone.report(p);
  }
  const arrived = await asWorker.allocation.assignments.arrival(asg.id, { passcode: asg.passcodes.start });
  if (arrived.status !== 'arrived') throw new Error(`arrival: ${arrived.status} ${JSON.stringify(arrived.next_action ?? '')}`);
  say(`arrival: ${arrived.status}`);

  step('The worker stays on site, then completes with the completion passcode');
  for (let i = 0; i < 4; i++) {
    await sleep(1500);
    await phone.report(path[path.length - 1]);
  }
  const completed = await asWorker.allocation.assignments.completion(asg.id, { passcode: asg.passcodes.completion });
  say(`completion: ${completed.status}${completed.next_action ? ` (next: ${completed.next_action.code})` : ''}`);
  if (completed.status === 'exception') {
    const exc = await org.allocation.exceptions.retrieve(completed.exception_id);
    say(`exception ${exc.id}: ${exc.conflicting_signals.map((x: { name: string }) => x.name).join(', ')} (the sandbox's dwell minimum is longer than this journey)`);
    const decided = await org.allocation.exceptions.adjudicate(exc.id, { outcome: 'upheld', reason: 'The site manager saw the work done.', accepted_signals: ['dwell_too_short'] });
    say(`adjudicated: ${decided.status}`);
  }
}

async function sealedProof(org: Client, assignmentId: string): Promise<void> {
  step('Proof of service: the sealed bundle');
  const proof = await org.allocation.assignments.proof(assignmentId);
  if (!proof.seal?.hash) throw new Error('the proof is not sealed');
  say(`proof of ${proof.assignment_id}: ${proof.readings_used.length} readings, ${proof.geofence_crossings.length} geofence crossing(s), dwell ${proof.dwell_seconds} s, ${proof.passcode_checks.length} passcode checks${proof.exception ? `, exception ${proof.exception.decision.outcome}` : ''}; sealed ${proof.seal.hash.slice(0, 23)}...`);
}

async function withdrawnOnRevocation(org: Client, asWorker: Client, phone: Phone, worker: string, site: Point, window: Window): Promise<void> {
  step('A second offer reaches the phone; the worker\u2019s identity is revoked and the offer is withdrawn');
  await sleep(1000);
  await phone.report(site);
  const wo2 = await org.allocation.workOrders.create({ location: { ...site, radius_metres: 100 }, search_radius_metres: 2000, window, headcount: 1, offer_timeout_seconds: 120 });
  say(`work order ${wo2.id}: ${wo2.status}`);
  const second = await phone.notice('offer.made');
  const entry = await org.identity.blocklistEntries.create({ subject_ref: worker, reason: 'Identity document reported stolen.' });
  say(`blocklist entry ${entry.id}`);
  const withdrawn = await phone.notice('offer.withdrawn');
  if (withdrawn.offer!.id !== second.offer!.id) throw new Error(`withdrawn ${withdrawn.offer!.id}, expected ${second.offer!.id}`);
  say(`offer ${withdrawn.offer!.id} withdrawn: ${withdrawn.offer!.reason}`);
  const pending = await asWorker.allocation.offers.list({ status: 'pending' });
  say(`the phone's pending offers: ${pending.data.length}`);
}

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const site = { latitude: 6.4413, longitude: 3.4216 };
  const north = (metres: number) => ({ latitude: site.latitude + metres / 111_320, longitude: site.longitude });
  const away = north(140); // outside the 100 m geofence and its 25 m slack

  const org = await registerOrganisation(run);
  const employer = `employer_${run}`;
  const worker = `wrk_${run}`;
  step('Consent and identity: the employer and the worker reach live passports');
  await livePassport(org, employer);
  await livePassport(org, worker);
  await engage(org, employer, worker);
  const { phone, asWorker } = await connectPhone(org, worker, away);

  const window = { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 4 * 3_600_000).toISOString() };
  const asg = await offerAndAssign(org, phone, site, window);
  await arriveAndComplete(org, asWorker, phone, asg, [north(70), site]);
  await sealedProof(org, asg.id);
  await withdrawnOnRevocation(org, asWorker, phone, worker, site, window);
  phone.device.stop();
  console.log('\nThe field worker\u2019s day is complete.');
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`\nThe journey stopped: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
