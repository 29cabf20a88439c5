/** Calendar dates (spec 2.1: YYYY-MM-DD, in UTC) and the month arithmetic of claim lifetimes and licence terms. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** ms at 00:00 UTC of a YYYY-MM-DD date, or NaN when it is not a real date. */
export function dateMs(date: string): number {
  const m = DATE.exec(date);
  if (!m) return NaN;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === date ? ms : NaN;
}

export const isDate = (date: unknown): date is string => typeof date === 'string' && !Number.isNaN(dateMs(date));

/** The YYYY-MM-DD (UTC) of a time. */
export const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The date `months` after `date`, the day clamped to the month's last (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const d = new Date(dateMs(date));
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return dateOf(Date.UTC(y, m, Math.min(d.getUTCDate(), last)));
}

export const addDays = (ms: number, days: number): number => ms + days * 86_400_000;
