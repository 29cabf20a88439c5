/**
 * What the remit part reads from its sibling parts (actors/remittance/intake, .../authorities;
 * /work/remittance-contract.md): the accepted instruction set (spec 2.10), the authorities with
 * their collection accounts, and the obligations a vaulted receipt remits. The shapes below are the
 * fields this part uses of theirs.
 */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { authorityById, obligationRemitted, obligationsFor, pensionAdministrator, type Authority, type Levy } from '../authorities/index.ts';
import { acceptedInstructionSet, instructionSetsFor } from '../intake/index.ts';

export { authorityById, pensionAdministrator, type Authority, type Levy };

interface Money {
  amount: number;
  currency: string;
}

/** The fields of an accepted IngestedInstructionSet (spec 2.10) a remittance is made from. */
export interface AcceptedSet {
  id: string;
  status: string;
  livemode: boolean;
  period: string;
  run_id: string | null;
  source: string;
  instructions: {
    paye: Array<{ authority_id: string; jurisdiction: string; amount: Money; payee_count?: number | null; reconciliation_reference: string }>;
    pension: Array<{ administrator_id: string; administrator_name?: string | null; authority_id: string | null; employee_amount?: Money | null; employer_amount?: Money | null; amount: Money; payee_count?: number | null; reconciliation_reference: string }>;
    levies: Array<{ code: string; authority_id: string; amount: Money; reconciliation_reference: string }>;
    totals: { total: Money };
  };
}

export interface ObligationRead {
  id: string;
  authority_id: string;
  levy: string;
  period: string;
  amount: Money;
  status: string;
}

export async function acceptedSet(p: Platform, c: Caller, id: string): Promise<AcceptedSet> {
  return (await acceptedInstructionSet(p, c, id)) as unknown as AcceptedSet;
}

export async function setsOfPeriod(p: Platform, c: Caller, period: string): Promise<unknown[]> {
  return (await instructionSetsFor(p, c, period)) as unknown[];
}

export async function obligationsOfPeriod(p: Platform, c: Caller, period: string): Promise<ObligationRead[]> {
  return (await obligationsFor(p, c, period)) as unknown as ObligationRead[];
}

export async function remitted(p: Platform, c: Caller, f: { authority_id: string; levy: Levy; period: string; leg_id: string; receipt_id: string }): Promise<void> {
  await obligationRemitted(p, c, f);
}
