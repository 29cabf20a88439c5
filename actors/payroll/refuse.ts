/** One refusal for a list of failing fields: invalid_money_amount when any is a fraction (spec 7). */
import { ApiError, type ValidationEntry, validationError, validationReport } from '../../kernel/index.ts';

export function refuse(entries: ValidationEntry[], entryCount = entries.length): never {
  const money = entries.find((e) => e.code === 'invalid_money_amount');
  if (money) throw new ApiError('invalid_money_amount', money.detail, { validation: validationReport(entryCount, entries) });
  throw validationError(entries, entryCount);
}
