/**
 * Classification engine (spec 2.6 classification, classification_review_required; spec 3 "a
 * contractor agreement cannot be issued over facts that classify as employment"; reference 3.2).
 * Pure: the rule pack weighs each fact toward a contract of service (+1) or for services (-1);
 * the weighted mean is the score in -1..1 and its magnitude the confidence. The side follows the
 * pack's thresholds (between them the pack's undetermined side, reviewed); the first rule of that
 * side whose facts all hold names the class. Every factor, its weight, its contribution and the
 * rule that fired are kept as the rationale.
 */
import { errorEntry, type ValidationEntry } from '../../kernel/index.ts';
import type { Classification, RulePack } from './packs.ts';

/** The facts a classification weighs (the pack's factor codes), plus the training-agreement flag. */
export type Facts = Record<string, string | boolean>;

export interface FactorResult {
  factor: string;
  question: string;
  fact: string;
  direction: number;
  weight: number;
  contribution: number;
  source: string;
}

export interface ClassificationRecord {
  object: 'classification';
  classification: Classification;
  side: 'employment' | 'contractor';
  side_undetermined: boolean;
  score: number;
  confidence: number;
  review_required: boolean;
  review_reasons: string[];
  contested: boolean;
  facts: Facts;
  factors: FactorResult[];
  rule: { id: string; description: string };
  thresholds: { employment_side_at_or_above: number; contractor_side_at_or_below: number; review_below_confidence: number };
  rule_pack: { pack_id: string; version: string; content_hash: string; legal_approval_reference: string };
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** Every way the facts fail the pack (the ValidationReport's entries); none when they are whole. */
export function checkFacts(pack: RulePack, facts: unknown, base = '/facts'): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  if (facts === null || typeof facts !== 'object' || Array.isArray(facts)) {
    return [errorEntry(base, 'required', 'facts must be an object naming a value for each factor.')];
  }
  const f = facts as Record<string, unknown>;
  const known = new Set(pack.classification.factors.map((x) => x.code).concat('training_agreement'));
  let i = 0;
  for (const factor of pack.classification.factors) {
    i++;
    const v = f[factor.code];
    const allowed = Object.keys(factor.values);
    if (v === undefined) out.push(errorEntry(`${base}/${factor.code}`, 'required', `facts.${factor.code} is required: ${factor.question} One of ${allowed.join(', ')}.`, i));
    else if (typeof v !== 'string' || !allowed.includes(v)) out.push(errorEntry(`${base}/${factor.code}`, 'invalid_enum', `facts.${factor.code} must be one of ${allowed.join(', ')}.`, i));
  }
  if (f.training_agreement !== undefined && typeof f.training_agreement !== 'boolean') {
    out.push(errorEntry(`${base}/training_agreement`, 'invalid_type', 'facts.training_agreement must be a boolean.', ++i));
  }
  for (const k of Object.keys(f)) if (!known.has(k)) out.push(errorEntry(`${base}/${k}`, 'unknown_field', `facts.${k} is not a factor of rule pack ${pack.version}.`, ++i));
  return out;
}

/** Classify checked facts under the pack; `contested` (a party disputes the result) forces review. */
export function classify(pack: RulePack, facts: Facts, contested = false): ClassificationRecord {
  const c = pack.classification;
  let total = 0;
  let weights = 0;
  const factors: FactorResult[] = c.factors.map((f) => {
    const fact = String(facts[f.code]);
    const direction = f.values[fact];
    const contribution = direction * f.weight;
    total += contribution;
    weights += f.weight;
    return { factor: f.code, question: f.question, fact, direction, weight: f.weight, contribution: round(contribution), source: f.source };
  });
  const score = round(total / weights);
  const confidence = round(Math.abs(score));
  const undetermined = score < c.employment_side_at_or_above && score > c.contractor_side_at_or_below;
  const side = undetermined ? c.undetermined_side : score >= c.employment_side_at_or_above ? 'employment' : 'contractor';
  const rule = c.rules.find((r) => r.side === side && Object.entries(r.when).every(([k, v]) => (facts[k] ?? false) === v))!;
  const reasons: string[] = [];
  if (confidence < c.review_below_confidence) reasons.push('low_confidence');
  if (undetermined) reasons.push('factors_split');
  if (contested) reasons.push('contested');
  return {
    object: 'classification',
    classification: rule.classification,
    side,
    side_undetermined: undetermined,
    score,
    confidence,
    review_required: reasons.length > 0,
    review_reasons: reasons,
    contested,
    facts: { ...facts },
    factors,
    rule: { id: rule.id, description: rule.description },
    thresholds: { employment_side_at_or_above: c.employment_side_at_or_above, contractor_side_at_or_below: c.contractor_side_at_or_below, review_below_confidence: c.review_below_confidence },
    rule_pack: { pack_id: pack.pack_id, version: pack.version, content_hash: pack.content_hash, legal_approval_reference: pack.legal_approval_reference },
  };
}

/** True for the classes on the employment side (what a contract for services may not paper). */
export const isEmploymentClass = (k: Classification): boolean => k === 'employment' || k === 'fixed_term_employment' || k === 'casual' || k === 'apprenticeship';
