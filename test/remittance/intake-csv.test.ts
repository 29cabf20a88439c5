/**
 * The instruction-set CSV (spec 4.9 imports; columns in docs/gaps.md "Remittance: intake,
 * authorities, obligations"): every failing row named, fractions refused. The records are the
 * kernel's parseCsv (test/kernel/csv.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { linesFromCsv } from '../../actors/remittance/intake/csv.ts';

describe('instruction-set CSV (spec 4.9)', () => {
  it('columns in any order; a pension row keeps its split; the total row is the control total', () => {
    const csv = ['amount,currency,section,administrator_id,employee_amount,employer_amount,reconciliation_reference,administrator_name', '1800,NGN,pension,pfa_oak,800,1000,r1,"OAK Pensions Ltd"', '1800,NGN,total,,,,,'].join('\n');
    const r = linesFromCsv(csv);
    expect(r.entries).toEqual([]);
    expect(r.lines!.pension).toEqual([{ administrator_id: 'pfa_oak', administrator_name: 'OAK Pensions Ltd', employee_amount: { amount: 800, currency: 'NGN' }, employer_amount: { amount: 1000, currency: 'NGN' }, amount: { amount: 1800, currency: 'NGN' }, payee_count: null, reconciliation_reference: 'r1' }]);
    expect(r.lines!.totals.total).toEqual({ amount: 1800, currency: 'NGN' });
  });

  it('a header with an unknown or missing column, and a file without exactly one total row, are refused with every problem named', () => {
    expect(linesFromCsv('section,amount,colour\n').entries.map((e) => e.code)).toEqual(['unknown_column', 'missing_column']);
    const noTotal = linesFromCsv('section,amount,currency,code,reconciliation_reference\nlevy,5,NGN,nhf,r');
    expect(noTotal.lines).toBeNull();
    expect(noTotal.entries.map((e) => e.code)).toEqual(['total_row_count']);
    const rows = linesFromCsv('section,amount,currency,jurisdiction,reconciliation_reference\npaye,abc,NGN,NG-LA,r1\npaye,5,ngn,,\ntotal,5,NGN,,');
    expect(rows.entries.map((e) => [e.index, e.code])).toEqual([[2, 'invalid_integer'], [3, 'invalid_currency'], [3, 'missing_value'], [3, 'missing_value']]);
  });
});
