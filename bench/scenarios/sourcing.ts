/**
 * Sourcing: requisitions screened by the fair-hiring pack per second, in process (issue "Sourcing
 * module": texts of about 2 KB, target >= 50,000/s), with the pack's rule count and each rule's
 * cost. The corpus is seeded: requisitions of ~2 KB (title, description, requirements) built
 * from ordinary advert sentences, one in ten carrying one offending phrase of the pack's rules.
 *
 * Baseline, measured in the same run over the same texts: one case-insensitive pass of a single
 * word-boundary literal (what reading every text once costs the regular-expression engine), so
 * the ratio says how many such passes the whole pack costs. Each figure is the median of ROUNDS
 * rounds; the note gives the spread (min to max).
 */
import { fairHiringPack, screen } from '../../actors/sourcing/index.ts';
import { rng } from '../../support/rng.ts';
import { absolute, compared, round, type BenchResult, versus } from '../report.ts';

const ROUNDS = 7;
const CORPUS = 2_000;
const TEXT_BYTES = 2_048;

const SENTENCES = [
  'You will install and maintain building wiring, inspect distribution boards and diagnose faults.',
  'The role reports to the facilities manager and works closely with the procurement team.',
  'Candidates should hold a relevant trade certificate and have hands-on installation experience.',
  'Good communication, punctuality and respect for safety rules are essential on every site.',
  'We offer a pension, health insurance under the NHIA scheme and paid annual leave.',
  'Shifts run from 7am to 4pm, Monday to Friday, with occasional weekend call-outs.',
  'Keep accurate records of every job and report defects to the supervisor the same day.',
  'Training on new equipment is provided, and there is a clear path to a senior role.',
  'The site is in Ikeja with transport support from the Ojota and Oshodi bus stops.',
  'Applicants should be able to read technical drawings and use a multimeter confidently.',
];
const OFFENDING = [
  'Applicants must be HIV negative.', 'Ladies only.', 'Not more than 28 years.', 'Indigenes of Ogun State only.', 'Christians only.',
  'Attach a full-length photograph.', 'Pay an application fee of N3,000.', 'Must be single.', 'State your genotype.', 'Able-bodied men only.',
];

function corpus(): Array<Array<readonly [string, string]>> {
  const r = rng(20261123);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  return Array.from({ length: CORPUS }, (_, i) => {
    let description = '';
    while (description.length < TEXT_BYTES - 260) description += `${pick(SENTENCES)} `;
    if (i % 10 === 0) {
      const at = Math.floor(r() * description.length);
      const cut = description.lastIndexOf(' ', at);
      description = `${description.slice(0, cut)} ${pick(OFFENDING)}${description.slice(cut)}`;
    }
    return [
      ['job_title', pick(['Electrician', 'Maintenance electrician', 'Solar technician', 'Electrical fitter'])],
      ['description', description.trim()],
      ['requirements', 'wiring\nmultimeter\nTrade test certificate (NABTEB or City & Guilds); three years of site experience.'],
    ] as const;
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[], unit: string, digits = 0) => `${ROUNDS} rounds, ${round(Math.min(...xs), digits).toLocaleString('en-US')} to ${round(Math.max(...xs), digits).toLocaleString('en-US')} ${unit}`;

/** Texts per second over the corpus, once per round. */
function rate(texts: Array<Array<readonly [string, string]>>, fn: (fields: Array<readonly [string, string]>) => void): number[] {
  const out: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const t = performance.now();
    for (const fields of texts) fn(fields);
    out.push(texts.length / ((performance.now() - t) / 1000));
  }
  return out;
}

export default async function sourcingBench(): Promise<BenchResult[]> {
  const pack = fairHiringPack();
  const texts = corpus();
  const bytes = texts.reduce((a, f) => a + f.reduce((b, [, t]) => b + t.length, 0), 0) / texts.length;
  let found = 0;
  for (const f of texts) found += screen(pack, f).length > 0 ? 1 : 0;
  if (found < CORPUS / 10) throw new Error(`bench corpus: only ${found} of ${CORPUS} texts have a finding; the pack is not screening`);

  const literal = /\bxyzzy\b/gi;
  const baseline = () =>
    rate(texts, (fields) => {
      for (const [, t] of fields) {
        literal.lastIndex = 0;
        while (literal.exec(t) !== null);
      }
    });
  const pass = () => rate(texts, (fields) => void screen(pack, fields));
  // warm both, then measure them interleaved so neither gets a quieter moment of the machine
  baseline();
  pass();
  const base = baseline();
  const screened = pass();

  const results: BenchResult[] = [
    versus('requisitions screened by the fair-hiring pack (in process)', Math.round(median(screened)), 'texts/s', 'one case-insensitive literal pass over the same texts', Math.round(median(base)), 50_000,
      `${spread(screened, 'texts/s')}; texts of ${Math.round(bytes).toLocaleString('en-US')} characters; ${found} of ${CORPUS} with a finding`),
    absolute('fair-hiring rules in the pack', pack.pack.rules.length, 'rules', undefined, true, `pack ${pack.pack.version} (${pack.hash.slice(0, 19)}...), ${pack.pack.rules.filter((r) => r.severity === 'block').length} blocking`),
    absolute('cost per text, whole pack (one compiled pass)', round(1e9 / median(screened), 0), 'ns/text', undefined, false),
  ];

  // Each rule alone over the same texts: what the rule would cost if it were screened on its own.
  let sum = 0;
  for (const [i, re] of pack.perRule.entries()) {
    const r = rate(texts, (fields) => {
      for (const [, t] of fields) {
        re.lastIndex = 0;
        re.test(t);
      }
    });
    const ns = 1e9 / median(r);
    sum += ns;
    results.push(compared(`rule ${pack.pack.rules[i].code} alone`, round(ns, 0), 'ns/text', 'literal pass', round(1e9 / median(base), 0), undefined, pack.pack.rules[i].severity));
  }
  results.push(absolute('sum of the rules run one by one', round(sum, 0), 'ns/text', undefined, false, `the compiled pass costs ${round((1e9 / median(screened)) / sum, 2)} of it`));
  return results;
}
