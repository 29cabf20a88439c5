/**
 * The lines of the obligation envelope (spec 2.6: "states what is owed, to which authority, on what
 * basis, from what date and how often; it never states a figure"): rules applied, not operations.
 * Derived from the classification and the engaging organisation's facts by the rule pack's
 * obligations table (reference 3.6 and ng-payroll-2026.md): each line says whether it applies (yes,
 * no, to_be_confirmed) and why. The envelope itself is read in reads.ts.
 */
import type { Applies, Classification, Obligation, RulePack, Sector } from './packs.ts';

export interface EmployerFacts {
  /** Staff of the engaging organisation (pension and ITF thresholds); null when not given. */
  headcount: number | null;
  /** Annual turnover of at least N50 million (ITF); null when not given. */
  annual_turnover_at_least_50m: boolean | null;
  sector: Sector | null;
}

export interface ObligationLine {
  code: string;
  applies: Applies;
  authority: string;
  basis: string;
  from: string;
  frequency: string;
  due: string;
  reference: string;
  why: string;
}

export function obligationLine(o: Obligation, k: Classification, employer: EmployerFacts, from: string): ObligationLine {
  let applies: Applies = o.applies[k];
  let why = o.notes?.[k] ?? (applies === 'yes' ? `Owed for ${k}.` : applies === 'no' ? `Not owed for ${k}.` : `Not confirmed for ${k}.`);
  if (employer.sector && o.sector_override?.[employer.sector] && applies !== 'no') {
    applies = o.sector_override[employer.sector]!;
    why = `The engaging organisation is ${employer.sector} sector.`;
  }
  const cond = o.employer_condition;
  if (cond && applies === 'yes') {
    const turnover = cond.or_turnover_50m && employer.annual_turnover_at_least_50m === true;
    if (turnover) why = 'The engaging organisation has annual turnover of N50 million or more.';
    else if (employer.headcount === null) {
      applies = 'to_be_confirmed';
      why = `${cond.detail} The engaging organisation's headcount was not given.`;
    } else if (employer.headcount >= cond.min_headcount) why = `${cond.detail} Headcount ${employer.headcount}.`;
    else if (cond.or_turnover_50m && employer.annual_turnover_at_least_50m === null) {
      applies = 'to_be_confirmed';
      why = `${cond.detail} Headcount ${employer.headcount}; turnover not given.`;
    } else {
      applies = 'no';
      why = `${cond.detail} Headcount ${employer.headcount}.`;
    }
  }
  return { code: o.code, applies, authority: o.authority, basis: o.basis, from, frequency: o.frequency, due: o.due, reference: o.reference, why };
}

export const obligationLines = (pack: RulePack, k: Classification, employer: EmployerFacts, from: string): ObligationLine[] =>
  pack.obligations.map((o) => obligationLine(o, k, employer, from));
