/**
 * Public face of the gross-to-net engine and the ng-payroll rule packs (spec 2.9, 9).
 * Pure computation: no I/O except reading the pack files once at load, no clock.
 *
 * Contract for the payroll runs code:
 *   findPack(version?)            undefined version -> the newest active pack
 *   packForPeriod(period)         the active pack whose effective dates cover a YYYY-MM period
 *   resolvePack(ref)              the pack whose version AND content hash match a pinned reference
 *   listPacks()                   every pack, active and draft, oldest first
 *   emptyYearToDate(taxYear)      the YearToDate at the start of a tax year (or of employment)
 *   validatePayee(payee, index?)  ValidationEntry[] naming every bad field (fractional money ->
 *                                 invalid_money_amount), for imports' ValidationReport
 *   computePayslip(pack, period, payee, employer, ytd?, options?)   -> PayslipComputation (throws
 *                                 ApiError validation_failed / invalid_money_amount on bad inputs);
 *                                 options: one-off items, regular pay or not, income month
 *                                 (reference ng-payroll-2026-irregular-pay.md)
 *   remittanceSchedule(pack, c, payDate)   due dates, recipients and PAYE authority (reference 8)
 *   taxAuthority(pack, state)     PAYE authority name for a state of residence (generic if unlisted)
 *   explain(c)                    plain-words sentences built from the traces
 *   diffComputations(a, b)        lines (and totals) whose amounts differ; [] when identical
 *   renderPayslipPdf(c, meta)     PDF bytes (pdfkit), deterministic for the same inputs
 *   naira(kobo)                   "NGN 1,234.56" (minor units from ISO 4217 data)
 *   LINE_ORDER, EMPLOYER_CODES    line codes in payslip order; employer-contribution codes
 *
 * Totals are sums of lines; amounts are integer kobo; exact values are exact decimal or rational
 * strings in kobo, computed with integer arithmetic (BigInt where a product would pass 2^53).
 */
export type {
  RulePackReference,
  RulePackStatus,
  RulePack,
  RulePackParameters,
  RateParameter,
  TaxBand,
  RoundingPolicy,
  MinimumWageMeasure,
  PayComponent,
  PayeMethod,
  UnconfirmedPoint,
  PayeeInputs,
  EmployerInputs,
  YearToDate,
  EarningCode,
  DeductionCode,
  EmployerContributionCode,
  LineCode,
  LineCategory,
  Trace,
  PayslipLine,
  PayslipComputation,
  ComputationDifference,
  RemittanceSchedule,
  PayslipDocumentMeta,
  PayItem,
  PayItemCode,
  PayslipOptions,
  ItemRule,
  ItemBase,
  ItemPaye,
  OneOffMethod,
  IrregularPayParameters,
} from './types.ts';
export { PAY_ITEM_CODES } from './types.ts';

export { findPack, listPacks, packForPeriod, resolvePack, canonicalForm, contentHash } from './packs.ts';
export { computePayslip, checkPayItems, emptyYearToDate, fullYearToDate, LINE_ORDER, EMPLOYER_CODES } from './compute.ts';
export { validatePayee, validateEmployer, MAX_KOBO, NG_STATES } from './validate.ts';
export { remittanceSchedule, taxAuthority, dueDates, dueIf, type DueDates } from './remittance.ts';
export { explain, diffComputations, naira } from './explain.ts';
export { renderPayslipPdf } from './pdf.ts';
