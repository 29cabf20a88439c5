/**
 * The payout instruction's state and the shapes it is judged on (spec 2.11 PayoutInstruction,
 * FundingCheck; the actor and its table: instruction.ts). Kept apart from the actor so its views
 * (instruction-views.ts) and the operations that read instructions need not load the rules.
 */

export type InstructionStatus = 'received' | 'quarantined' | 'funding_pending' | 'planned' | 'executing' | 'settled' | 'partially_settled' | 'failed';
export const INSTRUCTION_STATUSES: readonly InstructionStatus[] = ['received', 'quarantined', 'funding_pending', 'planned', 'executing', 'settled', 'partially_settled', 'failed'];
export type QuarantineReason = 'signature_invalid' | 'duplicate_instruction' | 'integrity_mismatch';
/** released: a held line's payout was sent after its cause cleared; the line waits for its outcome again. */
export type LineOutcome = 'settled' | 'failed' | 'held' | 'reversed' | 'released';

export interface FundingCheck {
  sufficient: boolean;
  required_amount: number;
  available_amount: number;
  shortfall: number;
  checked_at: number;
}

export interface Submission {
  source: 'run' | 'remit';
  run_id: string | null;
  remittance_id: string | null;
  total: number;
  currency: string;
  line_count: number;
  idempotency_key: string;
  signature_verified: boolean;
  quarantine_reason: QuarantineReason | null;
  /** Plain words: which check failed (a quarantined instruction's evidence). */
  findings: Array<{ line: number | null; code: string; detail: string }>;
  key_id: string;
  document_digest: string;
  instruction_ref: string | null;
  livemode: boolean;
  tally_interval_ms: number;
}

export interface InstructionState extends Submission {
  id: string;
  org: string;
  status: InstructionStatus;
  route_plan_id: string | null;
  funding_check: FundingCheck | null;
  created_at: number;
  executed_at: number | null;
  finished_at: number | null;
  failure_reason: string | null;
  dispatched: number;
  /** One character per line: '.' not reported yet, 's' settled, 'f' failed, 'r' reversed; held (waiting): 'h' no live passport, 'a' no account. */
  outcomes: string;
  settled_count: number;
  settled_amount: number;
  failed_count: number;
  failed_amount: number;
  held_count: number;
  held_amount: number;
  /** Held lines waiting for an account (the rest of held_count wait for a passport); absent on older states. */
  held_account_count?: number;
  /** Absent on states made before reversals existed: read as 0. */
  reversed_count?: number;
  reversed_amount?: number;
  /** The event whose ledger posting paid the settled amount (a later return names that posting). */
  posting_event_id?: string | null;
  tally_next_at: number | null;
}

export interface Outcome {
  line: number;
  outcome: LineOutcome;
  amount: number;
  /** Why a held line waits (absent: passport_not_live, as reported before reasons were). */
  held_reason?: 'passport_not_live' | 'no_bank_account';
}

