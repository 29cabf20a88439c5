/**
 * String formats the route schemas use (TypeBox checks only registered formats). One registry for
 * the whole process; money's `iso4217` is registered by kernel/money.ts.
 */
import { FormatRegistry } from '@sinclair/typebox';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

const set = (name: string, check: (v: string) => boolean) => {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
};

set('email', (v) => EMAIL.test(v));
set('date', validDate);
set('date-time', (v) => DATE_TIME.test(v) && validDate(v.slice(0, 10)) && !Number.isNaN(Date.parse(v)));
set('period', (v) => /^\d{4}-(0[1-9]|1[0-2])$/.test(v));
set('uri', (v) => {
  try {
    return Boolean(new URL(v).protocol);
  } catch {
    return false;
  }
});
