/**
 * The link between a payroll run and its payout instruction (spec 1 rule 10; spec 2.9 run statuses
 * completed / partially_settled / failed). Executing a run submits its signed instruction by
 * reaction, so no client carries it, and (policy run_instructions.execution on_run_execution: a
 * person already approved the run) plans and executes it, or leaves it in funding_pending until a
 * deposit makes it fit; when the instruction is final its outcome is carried back to the run. Both steps need I/O (reading the signed instruction, asking the run), so this actor only
 * records what is due and the service does it (actors/payouts/run-links.ts); a reminder asks again
 * until it is done, so a node that dies in between loses nothing.
 *
 * status       command            condition                         events                    next
 * -----------  -----------------  --------------------------------  ------------------------  -----------
 * (none)       run_executed       (reaction) run.executing          link.requested            requested
 * requested    retry              (timer) not yet submitted         link.retry_due            requested
 * requested    submitted          submitted (planned, executed or   link.submitted            submitted
                                 waiting for funds)
 * any          outcome            (reaction) instruction final      link.outcome_due          outcome_due
 * outcome_due  retry              (timer) not yet delivered         link.retry_due            outcome_due
 * outcome_due  outcome_delivered  the run took it (or was final)    link.closed               closed
 * others       any                -                                 - (nothing)
 */
import { defineActor, iso, type Reaction, type TimerWish } from '../../runtime/index.ts';
import { RUN_LINK_PREFIX, runInstructionIdOf, runLinkIdOf } from './ids.ts';

export type LinkStatus = 'requested' | 'submitted' | 'outcome_due' | 'closed';
export type RunOutcome = 'settled' | 'partially_settled' | 'failed';

export interface RunLinkState {
  id: string;
  org: string;
  run_id: string;
  status: LinkStatus;
  instruction_id: string | null;
  outcome: RunOutcome | null;
  note: string | null;
  retry_ms: number;
  due_at: number | null;
  updated_at: number;
}

type LinkEvent =
  | { type: 'link.requested'; run_id: string; retry_ms: number }
  | { type: 'link.retry_due'; status: LinkStatus }
  | { type: 'link.submitted'; instruction_id: string | null; note: string | null }
  | { type: 'link.outcome_due'; run_id: string; instruction_id: string; outcome: RunOutcome; retry_ms: number }
  | { type: 'link.closed'; note: string | null };

const RETRY_MS = 60_000;

/** Whether an instruction is the one the run link submitted for its run (funds arriving execute it). */
export const isRunLinkInstruction = (org: string, s: { id: string; source: string; run_id: string | null }): boolean => s.source === 'run' && s.run_id !== null && s.id === runInstructionIdOf(org, s.run_id);

const fromRun: Reaction = {
  from: 'payroll_run',
  events: ['run.executing'],
  command: 'run_executed',
  target: (event, source) => ({ id: runLinkIdOf(event.org, source.id), payload: { run_id: source.id } }),
};

const fromInstruction: Reaction = {
  from: 'payout_instruction',
  events: ['instruction.settled', 'instruction.partially_settled', 'instruction.failed'],
  command: 'outcome',
  target(event, source) {
    const d = event.data as { run_id: string | null; source: string };
    if (d.source !== 'run' || !d.run_id) return undefined;
    const outcome: RunOutcome = event.type === 'instruction.settled' ? 'settled' : event.type === 'instruction.partially_settled' ? 'partially_settled' : 'failed';
    return { id: runLinkIdOf(event.org, d.run_id), payload: { run_id: d.run_id, instruction_id: source.id, outcome } };
  },
};

export const RunLink = defineActor({
  kind: 'payout_run_link',
  prefix: RUN_LINK_PREFIX,
  creates: ['run_executed', 'outcome'],
  initial: (id: string, org: string): RunLinkState => ({ id, org, run_id: '', status: 'requested', instruction_id: null, outcome: null, note: null, retry_ms: RETRY_MS, due_at: null, updated_at: 0 }),
  decide: {
    run_executed(s: RunLinkState, cmd: { run_id: string; retry_ms?: number }, ctx): LinkEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'link.requested', run_id: cmd.run_id, retry_ms: cmd.retry_ms ?? s.retry_ms }];
    },
    retry(s: RunLinkState): LinkEvent[] {
      return s.status === 'requested' || s.status === 'outcome_due' ? [{ type: 'link.retry_due', status: s.status }] : [];
    },
    submitted(s: RunLinkState, cmd: { instruction_id: string | null; note?: string }): LinkEvent[] {
      return s.status === 'requested' ? [{ type: 'link.submitted', instruction_id: cmd.instruction_id, note: cmd.note ?? null }] : [];
    },
    outcome(s: RunLinkState, cmd: { run_id: string; instruction_id: string; outcome: RunOutcome }): LinkEvent[] {
      if (s.status === 'outcome_due' || s.status === 'closed') return [];
      return [{ type: 'link.outcome_due', run_id: cmd.run_id, instruction_id: cmd.instruction_id, outcome: cmd.outcome, retry_ms: s.retry_ms }];
    },
    outcome_delivered(s: RunLinkState, cmd: { note?: string }): LinkEvent[] {
      return s.status === 'outcome_due' ? [{ type: 'link.closed', note: cmd.note ?? null }] : [];
    },
  },
  evolve(s: RunLinkState, e: LinkEvent, meta): RunLinkState {
    const at = meta.at;
    switch (e.type) {
      case 'link.requested':
        return { ...s, run_id: e.run_id, status: 'requested', retry_ms: e.retry_ms, due_at: at + e.retry_ms, updated_at: at };
      case 'link.retry_due':
        return { ...s, due_at: at + s.retry_ms, updated_at: at };
      case 'link.submitted':
        return { ...s, status: 'submitted', instruction_id: e.instruction_id, note: e.note, due_at: null, updated_at: at };
      case 'link.outcome_due':
        return { ...s, run_id: e.run_id, status: 'outcome_due', instruction_id: e.instruction_id, outcome: e.outcome, due_at: at + e.retry_ms, updated_at: at };
      case 'link.closed':
        return { ...s, status: 'closed', note: e.note, due_at: null, updated_at: at };
    }
  },
  timers: (s: RunLinkState): TimerWish[] => (s.due_at !== null && (s.status === 'requested' || s.status === 'outcome_due') ? [{ name: 'retry', dueAt: s.due_at, command: 'retry', payload: {} }] : []),
  reactions: [fromRun, fromInstruction],
  view: (s: RunLinkState) => ({ id: s.id, object: 'payout_run_link' as const, run_id: s.run_id, status: s.status, instruction_id: s.instruction_id, outcome: s.outcome, note: s.note, updated_at: iso(s.updated_at) }),
});
