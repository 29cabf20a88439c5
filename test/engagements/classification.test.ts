/** The classification rule pack and engine (spec 2.6, 9; reference 3.2, 3.6). */
import { describe, expect, it } from 'vitest';
import { checkFacts, classify } from '../../actors/engagements/classify.ts';
import { obligationLines } from '../../actors/engagements/obligation-lines.ts';
import { CLASSIFICATIONS, clauseLibrary, packHash, rulePack } from '../../actors/engagements/packs.ts';
import { CONTRACTOR_FACTS, EMPLOYMENT_FACTS } from './support.ts';

const pack = rulePack()!;

describe('rule pack and clause library are versioned data (spec 9)', () => {
  it('each carries YYYY.MM.N and a sha256 content hash that matches its canonical content', () => {
    for (const doc of [pack, clauseLibrary()!]) {
      expect(doc.version).toMatch(/^\d{4}\.\d{2}\.\d+$/);
      expect(doc.content_hash).toBe(packHash(doc));
    }
    expect(packHash({ ...pack, legal_approval_reference: 'edited' })).not.toBe(pack.content_hash);
  });

  it('every template papers only known classifications, and one for each class exists', () => {
    const lib = clauseLibrary()!;
    for (const k of CLASSIFICATIONS) expect(lib.templates.some((t) => t.classifications.includes(k))).toBe(true);
    const services = lib.templates.find((t) => t.code === 'ng_contract_for_services')!;
    expect(services.classifications).toEqual(['independent_contracting', 'task_based']);
  });
});

describe('classification on facts (reference 3.2)', () => {
  const cases: Array<[string, Record<string, string | boolean>, string, boolean]> = [
    ['employment facts', EMPLOYMENT_FACTS, 'employment', false],
    ['employment facts, fixed term', { ...EMPLOYMENT_FACTS, duration: 'fixed_term' }, 'fixed_term_employment', false],
    ['employment facts, casual', { ...EMPLOYMENT_FACTS, duration: 'casual' }, 'casual', false],
    ['employment facts under a training agreement', { ...EMPLOYMENT_FACTS, training_agreement: true }, 'apprenticeship', false],
    ['contractor facts', CONTRACTOR_FACTS, 'independent_contracting', false],
    ['contractor facts, single task', { ...CONTRACTOR_FACTS, duration: 'single_task' }, 'task_based', false],
    ['contractor papers over employment facts (paid a fee, otherwise controlled)', { ...EMPLOYMENT_FACTS, payment_form: 'fee_on_invoice' }, 'employment', false],
    ['split facts read as employment, reviewed', { control: 'shared', integration: 'ancillary', economic_dependence: 'main_party', tools: 'shared', delegation: 'with_consent', payment_form: 'per_task', duration: 'casual' }, 'casual', true],
  ];
  for (const [name, facts, expected, review] of cases) {
    it(`${name} -> ${expected}${review ? ' (review required)' : ''}`, () => {
      expect(checkFacts(pack, facts)).toEqual([]);
      const r = classify(pack, facts);
      expect(r.classification).toBe(expected);
      expect(r.review_required).toBe(review);
      expect(r.factors).toHaveLength(pack.classification.factors.length);
      expect(r.score).toBeCloseTo(r.factors.reduce((a, f) => a + f.contribution, 0) / r.factors.reduce((a, f) => a + f.weight, 0), 3);
    });
  }

  it('a contest always requires review', () => {
    expect(classify(pack, EMPLOYMENT_FACTS, true)).toMatchObject({ review_required: true, review_reasons: ['contested'] });
  });

  it('missing, unknown and mistyped facts are each named', () => {
    const bad = checkFacts(pack, { control: 'boss', training_agreement: 'yes', colour: 'blue' });
    expect(bad.map((e) => e.field)).toEqual(expect.arrayContaining(['/facts/control', '/facts/tools', '/facts/training_agreement', '/facts/colour']));
  });
});

describe('obligations by class (reference 3.6), never a figure', () => {
  const employer = { headcount: null, annual_turnover_at_least_50m: null, sector: null } as const;
  it('a contractor owes no PAYE, pension, NSITF or ITF; an employee owes PAYE and NSITF from the start date', () => {
    const c = Object.fromEntries(obligationLines(pack, 'independent_contracting', employer, '2026-02-01').map((o) => [o.code, o.applies]));
    expect(c).toMatchObject({ paye: 'no', pension: 'no', nsitf: 'no', itf: 'no' });
    const e = obligationLines(pack, 'employment', employer, '2026-02-01');
    expect(e.find((o) => o.code === 'paye')).toMatchObject({ applies: 'yes', from: '2026-02-01', frequency: 'monthly' });
    expect(e.find((o) => o.code === 'nsitf')!.applies).toBe('yes');
  });
  it('headcount thresholds come from the pack; unknown headcount is to_be_confirmed', () => {
    const line = (headcount: number | null, turnover: boolean | null) =>
      obligationLines(pack, 'employment', { headcount, annual_turnover_at_least_50m: turnover, sector: null }, '2026-01-01').find((o) => o.code === 'itf')!.applies;
    expect(line(null, null)).toBe('to_be_confirmed');
    expect(line(5, false)).toBe('yes');
    expect(line(4, false)).toBe('no');
    expect(line(4, true)).toBe('yes');
    expect(line(4, null)).toBe('to_be_confirmed');
  });
});
