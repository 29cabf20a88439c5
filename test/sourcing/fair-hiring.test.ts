/**
 * The Nigerian fair-hiring rule pack (reference 4.2) and its engine: every rule fires on its
 * pattern with the right offending text; each blocking rule quarantines a requisition with the
 * right QuarantineFinding (spec 2.7); a warning rule suggests its neutral rewrite; the one-pass
 * compiled pack finds exactly what each rule alone finds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePack, fairHiringPack, matchText, screen } from '../../actors/sourcing/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { CLEAN_DESCRIPTION, create, fullBody } from './support.ts';

const pack = fairHiringPack();

/** One example per rule: the text, and what the rule must quote from it. */
const EXAMPLES: Array<[code: string, text: string, offending: string]> = [
  ['NG-HIV-01', 'Candidates must be HIV negative and submit a certificate.', 'HIV negative'],
  ['NG-DIS-01', 'Able-bodied applicants are preferred.', 'Able-bodied'],
  ['NG-DIS-02', 'No eyeglasses, please.', 'No eyeglasses'],
  ['NG-ORI-01', 'Indigenes of Anambra State only.', 'Indigenes of Anambra State only'],
  ['NG-ETH-01', 'Yoruba applicants only.', 'Yoruba applicants only'],
  ['NG-LAN-01', 'Must be a native speaker of Hausa.', 'native speaker of Hausa'],
  ['NG-REL-01', 'Christians only, please.', 'Christians only'],
  ['NG-REL-02', 'Please state your religion on the form.', 'state your religion'],
  ['NG-SEX-01', 'Ladies only.', 'Ladies only'],
  ['NG-SEX-02', 'We want pretty ladies for the front desk.', 'pretty ladies'],
  ['NG-MAR-01', 'Applicants must be single.', 'must be single'],
  ['NG-PRG-01', 'A pregnancy test is part of the medical.', 'pregnancy test'],
  ['NG-AGE-01', 'Applicants should not be more than 28 years.', 'not be more than 28 years'],
  ['NG-AGE-02', 'We want someone young and vibrant.', 'young and vibrant'],
  ['NG-AGE-03', 'Applicants aged 15 and above may apply.', 'aged 15 and above'],
  ['NG-CPX-01', 'Fair complexion is an advantage.', 'Fair complexion'],
  ['NG-PHY-01', 'Guards must be at least 5\'9" tall.', 'at least 5\'9"'],
  ['NG-GEN-01', 'State your genotype on the form.', 'genotype'],
  ['NG-PHO-01', 'Attach a full-length photograph with your CV.', 'full-length photograph'],
  ['NG-POL-01', 'Must be a card-carrying member of the APC.', 'card-carrying member of the APC'],
  ['NG-BRT-01', 'Must be a legitimate child of both parents.', 'legitimate child'],
  ['NG-FEE-01', 'Pay an application fee of N5,000 to apply.', 'application fee'],
  ['NG-NAT-01', 'Nigerians only.', 'Nigerians only'],
];

/** Texts no rule may fire on: ordinary adverts, and each rule's own neutral rewrite. */
const CLEAN = [
  CLEAN_DESCRIPTION,
  'There is no fee to apply. Open to all qualified applicants.',
  'At least 5 years and above of experience with industrial wiring; 0-2 years for the junior role.',
  'The application form is free; no application fee is charged.',
  ...pack.pack.rules.map((r) => r.rewrite),
];

describe('the pack (spec 9: versioned data with a content hash)', () => {
  it('carries a YYYY.MM.N version, a sha256 content hash and one example here per rule', () => {
    expect(pack.pack.version).toMatch(/^\d{4}\.\d{2}\.\d+$/);
    expect(pack.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(EXAMPLES.map(([c]) => c).sort()).toEqual(pack.pack.rules.map((r) => r.code).sort());
    expect(pack.pack.rules.filter((r) => r.severity === 'block').map((r) => r.code)).toEqual(['NG-HIV-01', 'NG-DIS-01', 'NG-ORI-01', 'NG-ETH-01', 'NG-REL-01', 'NG-AGE-03', 'NG-POL-01', 'NG-BRT-01', 'NG-FEE-01']);
  });

  it('a malformed pack is refused, naming every problem', () => {
    const bad = structuredClone(pack.pack) as any;
    bad.version = '2026.13.1';
    bad.rules[0].severity = 'maybe';
    bad.rules[1].patterns = ['(capturing)'];
    expect(() => compilePack(bad)).toThrow(/version.*rules\[0\]\.severity.*rules\[1\]\.patterns\[0\]/);
  });
});

describe('screening (reference 4.2)', () => {
  it.each(EXAMPLES)('%s fires on its pattern and quotes the offending text', (code, text, offending) => {
    const found = screen(pack, [['description', text]]);
    const f = found.find((x) => x.rule_code === code);
    expect(f, JSON.stringify(found)).toBeDefined();
    expect(f!.offending_text).toBe(offending);
    expect(f!.severity).toBe(pack.pack.rules.find((r) => r.code === code)!.severity);
  });

  it('no rule fires on ordinary advert text or on any rule\u2019s own neutral rewrite', () => {
    for (const t of CLEAN) expect(screen(pack, [['description', t]]), t).toEqual([]);
  });

  it('a warning suggests its neutral rewrite', () => {
    const [f] = screen(pack, [['description', 'Not more than 25 years.']]);
    expect(f).toMatchObject({ rule_code: 'NG-AGE-01', severity: 'warn', suggested_rewrite: pack.pack.rules.find((r) => r.code === 'NG-AGE-01')!.rewrite });
  });

  it('the one-pass compiled pack finds exactly the rules each rule alone finds (oracle)', () => {
    const texts = [...EXAMPLES.map(([, t]) => t), EXAMPLES.map(([, t]) => t).join(' '), ...CLEAN, `${CLEAN_DESCRIPTION} ${EXAMPLES[3][1]} ${EXAMPLES[8][1]}`];
    let compared = 0;
    for (const t of texts) {
      const one = new Map<number, string>();
      matchText(pack, t, one);
      const alone = pack.perRule.flatMap((re, i) => {
        re.lastIndex = 0;
        return re.test(t) ? [i] : [];
      });
      expect([...one.keys()].sort((a, b) => a - b), t).toEqual(alone);
      compared += alone.length;
    }
    expect(compared).toBeGreaterThanOrEqual(EXAMPLES.length * 2);
  });
});

describe('quarantine (spec 2.7 QuarantineFinding)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const blocking = EXAMPLES.filter(([code]) => pack.pack.rules.find((r) => r.code === code)!.severity === 'block');

  it.each(blocking)('%s quarantines the requisition with its code and offending text', async (code, text, offending) => {
    const r = await create(h, fullBody({ description: `${CLEAN_DESCRIPTION} ${text}` }));
    expect(r.status).toBe('quarantined');
    expect(r.quarantine).toEqual({ rule_code: code, rule_pack_version: pack.pack.version, detail: expect.any(String), contested: false, offending_text: offending });
  });

  it('a blocking rule in the job title quarantines too', async () => {
    const r = await create(h, fullBody({ job_title: 'Cleaner (Christians only)' }));
    expect(r.quarantine).toMatchObject({ rule_code: 'NG-REL-01', offending_text: 'Christians only' });
    expect(r.screening.findings[0].field).toBe('job_title');
  });
});
