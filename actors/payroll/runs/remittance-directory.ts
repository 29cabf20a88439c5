/**
 * What payroll asks of the remittance area when it shows a run's InstructionSet (spec 2.10):
 * the PAYE authority of a State of residence and each levy's due date. Remittance's authority and
 * calendar data are the one source of both; remittance builds on payroll (it reads runs through
 * payroll's face), so payroll cannot import it, and remittance provides this port in its start.
 * Without the remittance area mounted, the pinned rule pack's names and dates stand in.
 */
import { serviceKey } from '../../../kernel/index.ts';

export type RemittanceLevy = 'paye' | 'pension' | 'nhf' | 'nsitf' | 'itf' | 'nhia';

export interface RemittanceDirectory {
  /** The authority data's version (YYYY.MM.N). */
  version: string;
  /** The State IRS (or FCT-IRS) of an ISO 3166-2:NG code; its id is `authorityIdFor(code)`. */
  payeAuthority(state: string): { id: string; name: string } | undefined;
  /** When `levy` paid on `payDate` falls due under the statutory calendar; null where unconfirmed. */
  dueDate(levy: RemittanceLevy, payDate: string): string | null;
}

export const REMITTANCE_DIRECTORY = serviceKey<RemittanceDirectory>('remittance_directory');
