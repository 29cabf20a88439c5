import type { Caller, Platform } from '../kernel/index.ts';
import { MAX_IMPORT_ROWS, runImport } from '../actors/payroll/index.ts';

/**
 * The synthetic payee the payroll-fed benches import (payroll, remittance): salaries spread by a
 * fixed stride, half paying rent, a share without NHF or with NHIA, each in one of the given
 * States of residence and with one of the given pension administrators, in turn.
 */
export function payeeRow(i: number, states: readonly string[], pfas: readonly string[]) {
  const basic = 5_000_000 + ((i * 7_919) % 400_000_000);
  const m = (amount: number) => ({ amount, currency: 'NGN' });
  return {
    payee_ref: `emp-${String(i).padStart(6, '0')}`,
    monthly_basic: m(basic),
    monthly_housing: m(Math.floor(basic / 2)),
    monthly_transport: m(Math.floor(basic * 0.3)),
    monthly_other_allowances: m(i % 3 === 0 ? 0 : Math.floor(basic * 0.2)),
    annual_rent_paid: m(i % 2 ? 120_000_000 + i : 0),
    annual_life_assurance_premium: m(0),
    annual_mortgage_interest: m(0),
    state_of_residence: states[i % states.length],
    nhf_contributing: i % 4 !== 0,
    nhia_enrolled: i % 10 === 0,
    pension_administrator: pfas[i % pfas.length],
    bank_identifier: String(1_000_000_000 + i),
    starts_on: '2025-01-01',
    ends_on: null,
  };
}

/** Imports payees 0..n-1 (`row(i)`) in imports of MAX_IMPORT_ROWS, each refused unless completed. */
export async function importPayees(platform: Platform, caller: Caller, n: number, row: (i: number) => unknown): Promise<void> {
  for (let from = 0; from < n; from += MAX_IMPORT_ROWS) {
    const imp = (await runImport(platform, caller, {
      format: 'json',
      rows: Array.from({ length: Math.min(MAX_IMPORT_ROWS, n - from) }, (_, i) => row(from + i)),
      employer: { headcount: n, turnover_50m_or_more: true, maker_checker_threshold: 0 },
    })) as { status: string };
    if (imp.status !== 'completed') throw new Error(`bench import ${imp.status}`);
  }
}
