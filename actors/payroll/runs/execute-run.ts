/**
 * Executing an approved run (spec 1 rules 4 and 10, 2.9, 4.8): payslips become final, the ledger
 * posting is caused (a correction's after the reversal of the run it corrects), the instruction set
 * is built and the payout instruction signed.
 */
import { conflict, type Caller, keyValue, type Platform } from '../../../kernel/index.ts';
import type { PostingRequest } from '../../ledger/index.ts';
import { correctionDeltas } from '../payslips/record.ts';
import { loadPayslips } from '../payslips/storage.ts';
import { buildInstructionSet } from './instruction-set.ts';
import { buildPosting, reversalOf } from './ledger-posting.ts';
import { sealPayout } from './payout-instruction.ts';
import { pinnedPack, runState } from './run-state.ts';
import { Run } from './run.ts';

export async function executeRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'approved') throw conflict(`Run ${s.id} is ${s.status}; a run that has not been approved cannot be executed.`);
  const pack = pinnedPack(s);
  const records = await loadPayslips(p.system, s);
  const ledger_posting = buildPosting(s.id, s.period, s.livemode, records);
  let reversal: PostingRequest | undefined;
  let basis = records;
  if (s.corrects_run_id) {
    const target = await runState(p, c, s.corrects_run_id);
    const previous = await loadPayslips(p.system, target);
    const old = buildPosting(target.id, target.period, target.livemode, previous);
    if (old && target.ledger_posting_id) reversal = reversalOf(old, target.ledger_posting_id, `Reversal of payroll run ${target.id}, corrected by ${s.id}`);
    basis = correctionDeltas(records, previous);
  }
  const instruction_set = buildInstructionSet(s.id, s.period, pack, basis);
  const payout = await sealPayout(keyValue(p), s, basis);
  return p.system.ask(Run, runId, 'execute', { reversal, instruction_set, ledger_posting, payout }, c);
}
