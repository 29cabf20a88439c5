/**
 * Payslip document (spec 4.8 GET .../document): a PDF made with pdfkit from the computation.
 * Deterministic: the creation date comes from the caller (meta.issued_at), never the clock, so
 * the same payslip renders to the same bytes.
 */
import PDFDocument from 'pdfkit';
import { naira } from './explain.ts';
import type { PayslipComputation, PayslipDocumentMeta, PayslipLine } from './types.ts';

const EPOCH = new Date(Date.UTC(2000, 0, 1));

export function renderPayslipPdf(c: PayslipComputation, meta: PayslipDocumentMeta): Promise<Uint8Array> {
  const created = meta.issued_at ? new Date(meta.issued_at) : EPOCH;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 48,
    compress: true,
    info: { Title: `Payslip ${meta.payslip_id} ${c.period}`, Producer: 'workforce-platform payroll', Creator: 'ng-payroll engine', CreationDate: created, ModDate: created },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('data', (b: Buffer) => chunks.push(b));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(16).text('Payslip', { continued: true }).font('Helvetica').fontSize(10).text(`   ${c.period}`);
  doc.moveDown(0.5);
  const head: Array<[string, string | undefined]> = [
    ['Organisation', meta.organisation_name],
    ['Payee', meta.payee_name],
    ['Payee reference', meta.payee_reference],
    ['Payslip', meta.payslip_id],
    ['Run', meta.run_id],
    ['Issued', meta.issued_at],
    ['Rule pack', `${c.rule_pack.pack_id} ${c.rule_pack.version}`],
    ['Content hash', c.rule_pack.content_hash],
  ];
  doc.fontSize(9);
  for (const [k, v] of head) if (v) doc.font('Helvetica-Bold').text(`${k}: `, { continued: true }).font('Helvetica').text(v);

  const section = (title: string, lines: PayslipLine[], total: number, totalLabel: string) => {
    doc.moveDown(0.8).font('Helvetica-Bold').fontSize(11).text(title);
    doc.fontSize(9);
    for (const l of lines) row(l.label, naira(l.amount), `${l.trace.formula}; exact ${l.trace.exact} kobo`);
    doc.font('Helvetica-Bold');
    row(totalLabel, naira(total));
    doc.font('Helvetica');
  };
  const row = (label: string, amount: string, note?: string) => {
    const y = doc.y;
    doc.text(label, 48, y, { width: 250 });
    doc.text(amount, 300, y, { width: 120, align: 'right' });
    const after = doc.y;
    if (note) doc.fontSize(7).fillColor('#555555').text(note, 48, after, { width: 500 }).fontSize(9).fillColor('#000000');
    doc.x = 48;
  };

  section('Earnings', c.lines.filter((l) => l.category === 'earning'), c.gross, 'Gross pay');
  section('Deductions', c.lines.filter((l) => l.category === 'deduction'), c.total_deductions, 'Total deductions');
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(12);
  row('Net pay', naira(c.net));
  doc.font('Helvetica').fontSize(9);
  section('Employer contributions (not deducted from pay)', c.lines.filter((l) => l.category === 'employer_contribution'), c.employer_contributions, 'Total employer contributions');

  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(11).text('Year to date');
  doc.font('Helvetica').fontSize(9);
  row('Gross pay', naira(c.ytd_after.gross));
  row('PAYE deducted', naira(c.ytd_after.paye));
  row('Net pay', naira(c.ytd_after.net));
  doc.moveDown(1).fontSize(7).fillColor('#555555').text(
    `Every amount is rounded half up to the kobo on its own line (${c.lines[0]?.trace.rounding ?? 'half_up_per_line_kobo'}). ` +
      'PAYE uses the cumulative monthly method: tax for the projected year, apportioned by employed months, less PAYE already deducted.',
  );
  doc.end();
  return done;
}
