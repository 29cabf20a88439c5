/**
 * The check the remittance area registers for the payout instructions it signs: the lines agree
 * with the remittance and leg they name (spec 1 rule 10). Declared here, on the payouts face,
 * because payouts asks it and remittance, which pays through payouts and imports its face
 * already, provides it; payouts never imports the remittance area.
 */
import { serviceKey } from '../../kernel/index.ts';

/** One failing check of a signed instruction's lines (the payouts module keeps them as evidence). */
export interface SignedLineFinding {
  line: number | null;
  code: string;
  detail: string;
}

export interface RemitInstructionCheck {
  check(org: string, document: Record<string, unknown>): Promise<SignedLineFinding[]>;
}

export const REMIT_INSTRUCTION_CHECK = serviceKey<RemitInstructionCheck>('remit_instruction_check');
