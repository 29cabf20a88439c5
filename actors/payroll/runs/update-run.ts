/**
 * Changing a draft or simulated run (spec 4.8 PATCH /v1/payroll/runs/{run_id}): pay date,
 * description, the payees it is limited to, and its pay items (reference
 * ng-payroll-2026-irregular-pay.md 1.3), checked against the pinned pack's item rules.
 */
import { type Caller, errorEntry, type Platform, type ValidationEntry } from '../../../kernel/index.ts';
import { checkPayItems, PAY_ITEM_CODES, type PayComponent, type PayItemCode } from '../engine/index.ts';
import { refuse } from '../refuse.ts';
import { pinnedPack, runState } from './run-state.ts';
import { Run, type RunItem } from './run.ts';

type MoneyBody = { amount: number; currency: string };
export interface ItemBody {
  payee_ref: string;
  code: PayItemCode;
  amount: MoneyBody;
  components?: Record<PayComponent, MoneyBody>;
}
export interface UpdateRunBody {
  pay_date?: string;
  description?: string | null;
  payee_refs?: string[] | null;
  items?: ItemBody[];
}

const COMPONENTS: readonly PayComponent[] = ['basic', 'housing', 'transport', 'other_allowances'];

export async function updateRun(p: Platform, c: Caller, runId: string, body: UpdateRunBody): Promise<unknown> {
  const s = await runState(p, c, runId);
  const { items: given, ...rest } = body;
  let items: RunItem[] | undefined;
  if (given !== undefined) {
    const entries: ValidationEntry[] = [];
    const ngn = (m: MoneyBody, i: number, field: string) => {
      if (m.currency !== 'NGN') entries.push(errorEntry(`/items/${i}/${field}/currency`, 'unsupported_currency', `items[${i}] is paid in NGN only.`, i + 1));
      return m.amount;
    };
    items = given.map((it, i) => {
      const item: RunItem = { payee_ref: it.payee_ref, code: it.code, amount: ngn(it.amount, i, 'amount') };
      if (it.components) {
        item.components = Object.fromEntries(COMPONENTS.map((k) => [k, ngn(it.components![k], i, `components/${k}`)])) as Record<PayComponent, number>;
      }
      return item;
    });
    entries.push(...checkPayItems(pinnedPack(s), items));
    const seen = new Set<string>();
    items.forEach((it, i) => {
      const key = `${it.payee_ref}\u0000${it.code}`;
      if (seen.has(key)) entries.push(errorEntry(`/items/${i}`, 'duplicate_pay_item', `items[${i}] repeats ${it.code} for ${it.payee_ref}; give one amount per payee and code (${PAY_ITEM_CODES.length} codes).`, i + 1));
      seen.add(key);
    });
    if (entries.length) refuse(entries, items.length);
  }
  return p.system.ask(Run, s.id, 'update', { ...rest, ...(items ? { items } : {}) }, c);
}
