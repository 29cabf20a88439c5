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
