/**
 * The statutory remittance calendar as data (../shared/reference/ng-payroll-2026.md section 8;
 * ../shared/reference/ng-payroll-2026-irregular-pay.md, the worked due dates): one rule per levy
 * and the public holidays that working-day rules skip, in data/ng-remittance-calendar-<version>.json
 * (version YYYY.MM.N, sha256 of the canonical JSON; spec 9). Pure date arithmetic on the dates
 * given; no clock.
 *
 *   paye     day_of_next_month            the 10th of the month after the pay date
 *   pension  working_days_after_pay_date  7 working days (weekends and listed holidays skipped)
 *   nhf      same_day_next_month          clamped to that month's last day
 *   itf      annual_month_day             1 April of the year after the tax year
 *   nsitf    unconfirmed                  null
 *   nhia     unconfirmed                  null
 *
 * A calendar entry is the due date of one levy for one pay date: its id encodes the levy, the
 * period and the pay date, so it is read back without storage (docs/gaps.md, "Remittance:
 * intake, authorities, obligations").
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../../kernel/index.ts';
import { LEVIES, type Levy } from './authorities.ts';

export const CALENDAR_ENTRY_PREFIX = 'remit_authority_rail_calendar_entry_';

type Roll = 'none' | 'next_working_day' | 'previous_working_day';
type Rule =
  | { rule: 'day_of_next_month'; day: number; roll: Roll; basis: string }
  | { rule: 'working_days_after_pay_date'; days: number; basis: string }
  | { rule: 'same_day_next_month'; roll: Roll; basis: string }
  | { rule: 'annual_month_day'; month_day: string; roll: Roll; basis: string }
  | { rule: 'unconfirmed'; basis: string };

interface CalendarDocument {
  name: 'ng_remittance_calendar';
  version: string;
  description: string;
  /** Offset of the authorities' local time from UTC (Africa/Lagos, no daylight saving). */
  time_zone_offset_minutes: number;
  rules: Record<Levy, Rule>;
  holidays: Array<{ date: string; name: string; confirmed: boolean }>;
}

export interface CalendarData {
  version: string;
  content_hash: string;
  time_zone_offset_minutes: number;
  rules: Readonly<Record<Levy, Rule>>;
  holidays: ReadonlyMap<string, string>;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function loadCalendar(raw: unknown): CalendarData {
  const doc = raw as CalendarDocument;
  const bad = (why: string) => new Error(`remittance calendar: ${why}`);
  if (doc?.name !== 'ng_remittance_calendar' || !VERSION.test(doc.version)) throw bad('name or version');
  for (const l of LEVIES) if (!doc.rules[l]) throw bad(`no rule for ${l}`);
  for (const h of doc.holidays) if (!isDate(h.date)) throw bad(`holiday ${h.date} is not a date`);
  return Object.freeze({
    version: doc.version,
    content_hash: contentHash(doc),
    time_zone_offset_minutes: doc.time_zone_offset_minutes,
    rules: doc.rules,
    holidays: new Map(doc.holidays.map((h) => [h.date, h.name] as const)),
  });
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'data');
export const CALENDAR: CalendarData = loadCalendar(JSON.parse(readFileSync(join(dir, 'ng-remittance-calendar-2026.11.1.json'), 'utf8')));

export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toISOString().slice(0, 10) === s;
}
export const isPeriod = (s: string): boolean => PERIOD.test(s);

const utc = (s: string) => {
  const m = DATE.exec(s)!;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
};
const iso = (d: Date) => d.toISOString().slice(0, 10);

function isWorkingDay(d: Date, cal: CalendarData): boolean {
  const wd = d.getUTCDay();
  return wd !== 0 && wd !== 6 && !cal.holidays.has(iso(d));
}

function roll(date: string, how: Roll, cal: CalendarData): string {
  if (how === 'none') return date;
  const d = utc(date);
  const step = how === 'next_working_day' ? 1 : -1;
  while (!isWorkingDay(d, cal)) d.setUTCDate(d.getUTCDate() + step);
  return iso(d);
}

export interface DueDate {
  levy: Levy;
  pay_date: string;
  /** Null where the calendar gives no date (the rule is unconfirmed). */
  due_date: string | null;
  rule: Rule['rule'];
  basis: string;
  /** Holidays a working-day rule skipped. */
  holidays_skipped: Array<{ date: string; name: string }>;
}

/** When `levy` paid on `payDate` falls due; ITF counts from the pay date's year (the tax year). */
export function dueDateOf(levy: Levy, payDate: string, cal: CalendarData = CALENDAR): DueDate {
  if (!isDate(payDate)) throw new RangeError(`pay date ${payDate} is not YYYY-MM-DD`);
  const r = cal.rules[levy];
  const d = utc(payDate);
  const skipped: Array<{ date: string; name: string }> = [];
  let due: string | null;
  switch (r.rule) {
    case 'day_of_next_month':
    case 'same_day_next_month': {
      const y = d.getUTCFullYear();
      const m = d.getUTCMonth() + 1;
      const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
      const day = r.rule === 'day_of_next_month' ? r.day : d.getUTCDate();
      due = roll(iso(new Date(Date.UTC(y, m, Math.min(day, last)))), r.roll, cal);
      break;
    }
    case 'working_days_after_pay_date': {
      const t = new Date(d.getTime());
      for (let left = r.days; left > 0; ) {
        t.setUTCDate(t.getUTCDate() + 1);
        const wd = t.getUTCDay();
        const h = cal.holidays.get(iso(t));
        if (wd !== 0 && wd !== 6 && h !== undefined) skipped.push({ date: iso(t), name: h });
        if (isWorkingDay(t, cal)) left--;
      }
      due = iso(t);
      break;
    }
    case 'annual_month_day':
      due = roll(`${d.getUTCFullYear() + 1}-${r.month_day}`, r.roll, cal);
      break;
    case 'unconfirmed':
      due = null;
      break;
  }
  return { levy, pay_date: payDate, due_date: due, rule: r.rule, basis: r.basis, holidays_skipped: skipped };
}

/** The instant an obligation due on `dueDate` becomes late: the end of that day in the authorities' time zone. */
export function lateAt(dueDate: string, cal: CalendarData = CALENDAR): number {
  return utc(dueDate).getTime() + 86_400_000 - cal.time_zone_offset_minutes * 60_000;
}

/** The calendar entry id of a levy paid on a pay date in a period: the facts themselves, in base62. */
export function calendarEntryId(levy: Levy, period: string, payDate: string): string {
  return `${CALENDAR_ENTRY_PREFIX}${levy}${period.replace('-', '')}d${payDate.replaceAll('-', '')}`;
}

/** The facts a calendar entry id names, or undefined for an id that names none. */
export function parseCalendarEntryId(id: string): { levy: Levy; period: string; pay_date: string } | undefined {
  if (!id.startsWith(CALENDAR_ENTRY_PREFIX)) return undefined;
  const m = /^([a-z]+)(\d{4})(\d{2})d(\d{4})(\d{2})(\d{2})$/.exec(id.slice(CALENDAR_ENTRY_PREFIX.length));
  if (!m || !(LEVIES as readonly string[]).includes(m[1])) return undefined;
  const period = `${m[2]}-${m[3]}`;
  const pay_date = `${m[4]}-${m[5]}-${m[6]}`;
  if (!isPeriod(period) || !isDate(pay_date)) return undefined;
  return { levy: m[1] as Levy, period, pay_date };
}

/** The calendar entry record (docs/gaps.md, "Remittance: intake, authorities, obligations"). */
export function calendarEntryView(levy: Levy, period: string, payDate: string, livemode: boolean) {
  const d = dueDateOf(levy, payDate);
  return {
    id: calendarEntryId(levy, period, payDate),
    object: 'remittance_calendar_entry' as const,
    livemode,
    mocked: false,
    levy,
    period,
    pay_date: payDate,
    due_date: d.due_date,
    rule: d.rule,
    basis: d.basis,
    holidays_skipped: d.holidays_skipped,
    calendar_version: CALENDAR.version,
    calendar_content_hash: CALENDAR.content_hash,
  };
}
