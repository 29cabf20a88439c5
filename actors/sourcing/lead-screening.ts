/**
 * Screening a lead against the requirements of the requisition version it answered (issue
 * "Sourcing module": leads "screened against the requisition's requirements"; the screening
 * record is "not shown", docs/gaps.md#sourcing). Each requirement is one check: met, not_met, or
 * unknown when the lead does not say (silence is never a pass, spec 1 rule 8). The outcome is
 * meets only when every check is met; does_not_meet when any is not met; incomplete otherwise.
 */
import type { Content } from './requisition.ts';

export interface Candidate {
  full_name: string;
  phone: string | null;
  email: string | null;
  state: string | null;
  experience_years: number | null;
  skills: string[];
  licences: string[];
}

export type CheckOutcome = 'met' | 'not_met' | 'unknown';
export type ScreeningOutcome = 'meets' | 'does_not_meet' | 'incomplete';

export interface LeadCheck {
  requirement: string;
  outcome: CheckOutcome;
  detail: string;
}

export interface LeadScreening {
  outcome: ScreeningOutcome;
  checks: LeadCheck[];
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

export function screenLead(c: Content, candidate: Candidate): LeadScreening {
  const r = c.requirements;
  const checks: LeadCheck[] = [];
  if (r.min_experience_years !== null) {
    const y = candidate.experience_years;
    checks.push(
      y === null
        ? { requirement: 'min_experience_years', outcome: 'unknown', detail: `Needs ${r.min_experience_years} years; the lead gives none.` }
        : { requirement: 'min_experience_years', outcome: y >= r.min_experience_years ? 'met' : 'not_met', detail: `Needs ${r.min_experience_years} years; the lead has ${y}.` },
    );
  }
  const have = (list: string[]) => new Set(list.map(norm));
  for (const [name, wanted, held] of [['skills', r.skills, have(candidate.skills)], ['licences', r.licences, have(candidate.licences)]] as const) {
    for (const w of wanted) {
      const ok = held.has(norm(w));
      checks.push({ requirement: `${name}:${w}`, outcome: ok ? 'met' : held.size === 0 ? 'unknown' : 'not_met', detail: ok ? `Holds ${w}.` : held.size === 0 ? `Needs ${w}; the lead lists no ${name}.` : `Needs ${w}; not among the lead's ${name}.` });
    }
  }
  if (r.within_state && c.location?.state) {
    const want = c.location.state;
    checks.push(
      candidate.state === null
        ? { requirement: 'within_state', outcome: 'unknown', detail: `The role is in ${want}; the lead gives no State.` }
        : { requirement: 'within_state', outcome: candidate.state === want ? 'met' : 'not_met', detail: `The role is in ${want}; the lead is in ${candidate.state}.` },
    );
  }
  const outcome: ScreeningOutcome = checks.some((x) => x.outcome === 'not_met') ? 'does_not_meet' : checks.some((x) => x.outcome === 'unknown') ? 'incomplete' : 'meets';
  return { outcome, checks };
}
