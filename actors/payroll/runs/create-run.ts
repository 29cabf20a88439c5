/** Creating a draft run (spec 4.8 POST /v1/payroll/runs): the rule pack it pins and the run it corrects. */
import { ApiError, createDedupe, createdId, type Caller, fieldError, type Platform } from '../../../kernel/index.ts';
import { findPack, packForPeriod, type RulePack } from '../engine/index.ts';
import { RUN_PREFIX } from '../payroll-ids.ts';
import { runState } from './run-state.ts';
import { EXECUTED, Run, type RunItem, type RunState, type RunType } from './run.ts';

export interface CreateRunBody {
  period: string;
  run_type: RunType;
  pay_date?: string;
  description?: string | null;
  rule_pack_version?: string;
  corrects_run_id?: string;
}

const lastDay = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export async function createRun(p: Platform, c: Caller, body: CreateRunBody): Promise<unknown> {
  let pack: RulePack | undefined;
  if (body.rule_pack_version !== undefined) {
    pack = findPack(body.rule_pack_version);
    if (!pack) throw fieldError('/rule_pack_version', 'unknown_rule_pack', `No rule pack with version ${body.rule_pack_version}.`);
    if (pack.status !== 'active') throw fieldError('/rule_pack_version', 'draft_rule_pack', `Rule pack ${pack.ref.version} is a draft; a run pins an active pack, drafts are for simulation.`);
  } else {
    pack = packForPeriod(body.period);
    if (!pack) throw fieldError('/period', 'no_rule_pack_for_period', `No active rule pack covers ${body.period}.`);
  }
  const first = `${body.period}-01`;
  if (first < pack.effective_from || (pack.effective_to !== null && first > pack.effective_to)) {
    throw fieldError('/period', 'period_outside_rule_pack', `Rule pack ${pack.ref.version} covers ${pack.effective_from} to ${pack.effective_to ?? 'open'}, not ${body.period}.`);
  }
  let corrects: string | null = null;
  let items: RunItem[] = [];
  if (body.run_type === 'correction') {
    if (!body.corrects_run_id) throw fieldError('/corrects_run_id', 'required', 'A correction run names the executed run it corrects (corrects_run_id).');
    let target: RunState;
    try {
      target = await runState(p, c, body.corrects_run_id);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') throw fieldError('/corrects_run_id', 'unknown_run', `No payroll run with id ${body.corrects_run_id}.`);
      throw e;
    }
    if (!EXECUTED.has(target.status)) throw fieldError('/corrects_run_id', 'run_not_executed', `Run ${target.id} is ${target.status}; only an executed run is corrected.`);
    if (target.period !== body.period) throw fieldError('/corrects_run_id', 'period_mismatch', `Run ${target.id} is for ${target.period}, not ${body.period}.`);
    corrects = target.id;
    items = target.items ?? [];
  } else if (body.corrects_run_id !== undefined) {
    throw fieldError('/corrects_run_id', 'not_a_correction', 'Only a correction run names a run it corrects.');
  }
  return p.system.ask(Run, createdId(c, RUN_PREFIX), 'create', {
    run_type: body.run_type, corrects_run_id: corrects, period: body.period, pay_date: body.pay_date ?? lastDay(body.period), description: body.description ?? null, rule_pack: pack.ref, livemode: c.livemode, items,
  }, { ...c, dedupeId: createDedupe(c) });
}
