/**
 * The authorities part of the remittance area (spec 2.10, 4.9; reference ng-payouts-remittance.md
 * section 2, ng-payroll-2026.md section 8): authorities and the statutory calendar as versioned
 * data, obligations, calendar entries. The area face (actors/remittance/index.ts) re-exports what
 * other parts and areas may use.
 */
export {
  AUTHORITIES, AUTHORITY_KINDS, AUTHORITY_PREFIX, LEVIES, LEVY_CODES, authorities, authorityById, authorityIdOf, authorityView, levyAuthority, loadAuthorities, payeAuthorityFor, pensionAdministrator,
  type Authority, type AuthorityKind, type CollectionAccount, type Levy, type LevyCode,
} from './authorities.ts';
export { CALENDAR, CALENDAR_ENTRY_PREFIX, calendarEntryId, calendarEntryView, dueDateOf, isDate, isPeriod, lateAt, type DueDate } from './calendar.ts';
export { routes as authorityRoutes } from './routes.ts';
export { Obligation, OBLIGATION_PREFIX, OBLIGATION_STATUSES, obligationIdOf, obligationView, type AddLine, type ObligationState, type ObligationStatus, type ObligationView } from './obligation.ts';
export { addObligationLine, obligationRemitted, obligationsFor } from './obligations.ts';
export { remittanceDirectory } from './directory.ts';
