/**
 * A payroll month, from registration to settled payouts, an accepted remittance and vaulted
 * receipts, against a running platform (README "New here?"; spec 2.9, 2.10, 2.11, 3):
 *
 *   BASE_URL=http://127.0.0.1:8080 node --import tsx examples/payroll-month.ts
 *
 * On the platform's TypeScript client (clients/typescript), as an integrator's backend would call
 * it: every step is a call a user makes, printed as it goes. The payees' accounts are the
 * sandbox rails' documented test accounts (GET /v1/payouts/rails: any serial not listed settles at
 * once) and their identities the sandbox registry's test values (a NIN ending in 0, 4, 6, 8 or 9
 * is found and matches; docs/gaps.md#identity). After execute nobody calls payouts: the run waits
 * with next_action fund_account, a deposit pays it, and the run completes by itself. Exits 0 only
 * when the journey completed.
 */
import { createClient, type Client } from '../clients/typescript/src/index.ts';

const BASE = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const DEADLINE = Date.now() + 55_000;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

type Json = Record<string, any>;

const step = (what: string, detail?: unknown) => console.log(`- ${what}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
const ngn = (amount: number) => ({ amount, currency: 'NGN' as const });
const naira = (m: { amount: number }) => `NGN ${(m.amount / 100).toLocaleString('en-NG', { minimumFractionDigits: 2 })}`;

/** Reads until `done` holds (the platform moves on by itself), or fails at the journey's deadline. */
async function until<T>(what: string, read: () => PromiseLike<T>, done: (r: T) => boolean): Promise<T> {
  for (;;) {
    const r = await read();
    if (done(r)) return r;
    if (Date.now() > DEADLINE) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(r).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Two payees: their sandbox bank accounts (GTBank 058, serials that settle at once) and NINs that match.
const PAYEES = [
  { payee_ref: 'emp-001', name: 'Ada Obi', nin: '70123456780', account: { bank_code: '058', account_number: '0001000101', account_name: 'Ada Obi' }, basic: 25_000_000 },
  { payee_ref: 'emp-002', name: 'Chidi Eze', nin: '70123456784', account: { bank_code: '058', account_number: '0001001115', account_name: 'Chidi Eze' }, basic: 18_000_000 },
];

async function main(): Promise<void> {
  console.log(`Payroll month against ${BASE}`);
  const reg = await createClient({ baseUrl: BASE }).registrations.create({ organisation_name: 'Acme Ltd', name: 'Ada Obi', email: `ada+${run}@acme.example`, password: 'a long unusual passphrase' });
  const key: string = reg.api_key.key;
  const client: Client = createClient({ baseUrl: BASE, apiKey: key });
  step('1. registered', { organisation: reg.organisation?.id ?? '(created)', key: `${key.slice(0, 12)}...` });

  const imported = await client.payroll.imports.create({
    format: 'json',
    employer: { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: ngn(1_000_000_000) },
    rows: PAYEES.map((p) => ({
      payee_ref: p.payee_ref, name: p.name, monthly_basic: ngn(p.basic), monthly_housing: ngn(p.basic / 2), monthly_transport: ngn(p.basic * 0.3),
      state_of_residence: 'NG-LA', nhf_contributing: true, pension_administrator: 'pfa_leadway_pensure', bank_account: p.account, starts_on: '2026-01-01',
    })),
  });
  if (imported.status !== 'completed') throw new Error(`import ${imported.status}: ${JSON.stringify(imported.validation)}`);
  const profiles = await client.payProfiles.list({ limit: 10 });
  step('2. imported payees with where their pay goes (bank_account)', profiles.data.map((p: Json) => `${p.payee_ref} ${p.bank_account.bank_code}/${p.bank_account.account_number_last4}`).join(', '));

  for (const p of PAYEES) {
    const consent = await client.identity.consentTokens.create({ subject_ref: p.payee_ref, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match', 'contactability'], wording_version: 'ng-consent-2026-11' });
    const v = await client.identity.verifications.create({ subject_ref: p.payee_ref, consent_token_id: consent.id, claims: { full_name: 'Adaeze Okafor', date_of_birth: '1990-01-01', government_identifier: p.nin, phone: '+2348012345678' } });
    if (v.outcome !== 'resolved' || !v.passport_id) throw new Error(`verification of ${p.payee_ref}: ${JSON.stringify(v)}`);
    step(`3. verified ${p.payee_ref} with consent; passport`, v.passport_id);
  }

  const created = await client.payroll.runs.create({ period: '2026-01', run_type: 'regular' });
  const calculated = await client.payroll.runs.calculate(created.id);
  const findings = await client.payroll.runs.findings.list(created.id);
  step('4. run calculated', { run: created.id, gross: naira(calculated.totals.gross), net: naira(calculated.totals.net), findings: findings.data.map((f: Json) => `${f.severity} ${f.code}`) });
  if (findings.data.some((f: Json) => f.severity === 'p0')) throw new Error('a p0 finding blocks approval');
  await client.payroll.runs.submit(created.id);
  const approved = await client.payroll.runs.approve(created.id);
  const executed = await client.payroll.runs.execute(created.id);
  step('5. submitted, approved and executed', { approved_by: approved.approved_by, status: executed.status });

  const readRun = () => client.payroll.runs.retrieve(created.id);
  const waiting = await until('the run to say what it waits for', readRun, (r) => r.next_action?.code === 'fund_account' || r.status !== 'executing');
  if (waiting.next_action?.code !== 'fund_account') throw new Error(`expected the run to wait for funds: ${JSON.stringify(waiting)}`);
  step('6. the run waits', `${waiting.next_action.code}: ${waiting.next_action.message}`);
  const deposit = await client.payouts.fundingAccount.deposits.create({ amount: waiting.next_action.details!.amount_short as { amount: number; currency: string } });
  step('7. deposited the amount short (sandbox funding)', naira(deposit.balance));

  const done = await until('the run to complete', readRun, (r) => r.status !== 'executing');
  if (done.status !== 'completed') throw new Error(`the run ended ${done.status}`);
  const [instruction] = (await client.payouts.instructions.list({ run_id: created.id })).data;
  const payouts = (await client.payouts.payouts.list({ instruction_id: instruction.id })).data;
  step('8. run completed by itself; payouts', payouts.map((p: Json) => `${p.payee_ref} ${naira(p.amount)} ${p.status} on ${p.current_rail_id}`).join(', '));
  const settlement = await client.payouts.settlements.create({ instruction_id: instruction.id });
  const receipt = await client.payouts.settlements.receipt(settlement.id);
  step('9. settlement and its receipt', { settlement: settlement.id, status: settlement.status, digest: receipt.digest ?? receipt.receipt_digest });

  const sets = await until('the remittance instruction set', () => client.remittance.instructionSets.list({ limit: 20 }), (r) => r.data.some((x: Json) => x.run_id === created.id && x.status === 'pending_acceptance'));
  const set = sets.data.find((x: Json) => x.run_id === created.id)!;
  step('10. the run\u2019s remittance instruction set arrived', `${set.status}; ${set.next_action?.code}: ${set.next_action?.message}`);
  const accepted = await client.remittance.instructionSets.accept(set.id);
  const remittance = await client.remittance.remittances.create({ instruction_set_id: accepted.id });
  await client.remittance.remittances.approve(remittance.id);
  await client.payouts.fundingAccount.deposits.create({ amount: remittance.total });
  await client.remittance.remittances.execute(remittance.id);
  step('11. accepted, remittance approved, funded and executed', { remittance: remittance.id, total: naira(remittance.total) });

  const legs = await until('every leg\u2019s receipt to be vaulted', () => client.remittance.remittances.legs.list(remittance.id, { limit: 100 }), (r) => r.data.length > 0 && r.data.every((l: Json) => l.status === 'completed' || l.status === 'failed'));
  for (const l of legs.data) step(`12. leg ${l.levy} to ${l.authority_name}`, `${naira(l.amount)} ${l.status}${l.receipt_id ? `, receipt ${l.receipt_id} vaulted` : ''}`);
  if (!legs.data.every((l: Json) => l.status === 'completed' && l.receipt_id)) throw new Error('a leg did not complete');
  console.log('Journey completed: payees paid and settled, remittance accepted, receipts vaulted.');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
