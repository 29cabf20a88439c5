/**
 * A run as GET /v1/payroll/runs and GET .../{run_id} answer it (spec 2.9, 4.8), with what an
 * executing run waits for once its payout instruction is in payouts (docs/gaps.md "next_action":
 * funds short, payees without a live passport or an account). RUN_PAYOUT_WAIT is declared here,
 * on payroll's face, because payroll shows the wait and payouts, which imports payroll's face
 * already, provides it; payroll never imports the payouts area.
 */
import { idOf, type ListEnvelope, listPage, type NextAction, type Platform, serviceKey } from '../../../kernel/index.ts';
import { RUN_PREFIX } from '../payroll-ids.ts';
import { Run, type runView } from './run.ts';

export interface RunPayoutWait {
  waitOf(org: string, runId: string): Promise<NextAction | null>;
}

export const RUN_PAYOUT_WAIT = serviceKey<RunPayoutWait>('run_payout_wait');

type RunView = ReturnType<typeof runView>;

/** An executing run's next_action is its payouts' (null while they move on by themselves). */
async function withPayoutWait(p: Platform, org: string, v: RunView): Promise<RunView> {
  const wait = v.status === 'executing' ? p.services.get(RUN_PAYOUT_WAIT) : undefined;
  return wait ? { ...v, next_action: await wait.waitOf(org, v.id) } : v;
}

export async function runRecord(p: Platform, org: string, runId: string): Promise<RunView> {
  const v = (await p.system.get(Run, idOf(runId, RUN_PREFIX, 'payroll run'), org)) as RunView;
  return withPayoutWait(p, org, v);
}

export async function runPage(p: Platform, org: string, list: string, query: { limit?: number; starting_after?: string }): Promise<ListEnvelope<RunView>> {
  const page = (await listPage(p.system, Run, org, list, query as never, 'desc')) as ListEnvelope<RunView>;
  return { ...page, data: await Promise.all(page.data.map((v) => withPayoutWait(p, org, v))) };
}
