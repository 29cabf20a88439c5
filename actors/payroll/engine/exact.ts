/**
 * Exact integer arithmetic for money in kobo (spec 2.9: exact values, never floats).
 *
 * The hot path stays in plain numbers while every intermediate is a safe integer (< 2^53) and
 * switches to BigInt for the one operation whose product would not be. Values handled here are
 * never negative except in `subExact` (a PAYE refund), which formats the sign itself.
 */

/** A decimal rate as a reduced fraction p/q, parsed once when a pack loads. */
export interface Rate {
  text: string;
  p: number;
  q: number;
  /** Decimal places of p/q (q divides 10^places), so amount x rate = amount x p x (10^places / q) / 10^places. */
  places: number;
  /** p x 10^places / q: the rate as an integer count of 10^-places. */
  scaled: number;
  /** 10^places */
  scale: number;
}

export function parseRate(text: string): Rate {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`rate ${JSON.stringify(text)} is not a non-negative decimal`);
  const frac = m[2] ?? '';
  let p = Number(m[1] + frac);
  let q = 10 ** frac.length;
  const g = gcd(p, q);
  p /= g;
  q /= g;
  if (!Number.isSafeInteger(p) || !Number.isSafeInteger(q)) throw new Error(`rate ${text} has too many digits`);
  const places = decimalPlaces(q);
  const scale = 10 ** places;
  return { text, p, q, places, scale, scaled: (p * scale) / q };
}

/** An integer count of 10^-places (n >= 0) as a decimal string without trailing zeros. */
function scaledDecimal(n: number, scale: number, places: number): string {
  const whole = floorDiv(n, scale);
  let f = n - whole * scale;
  if (f === 0) return String(whole);
  let p = places;
  while (f % 10 === 0) { f /= 10; p--; }
  const frac = String(f);
  return whole + '.' + (frac.length < p ? '0'.repeat(p - frac.length) + frac : frac);
}

export function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

function gcdBig(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

export const lcm = (a: number, b: number) => (a / gcd(a, b)) * b;

/** floor(n / d) for safe non-negative integers, exact even where n / d rounds in floating point. */
function floorDiv(n: number, d: number): number {
  let q = Math.floor(n / d);
  let r = n - q * d;
  while (r < 0) { q -= 1; r += d; }
  while (r >= d) { q += 1; r -= d; }
  return q;
}

/** Round half up of n/d (n >= 0, d > 0) to an integer. */
export function halfUp(n: number | bigint, d: number | bigint): number {
  if (typeof n === 'number' && typeof d === 'number') {
    const twice = 2 * n + d;
    if (Number.isSafeInteger(twice) && Number.isSafeInteger(2 * d)) return floorDiv(twice, 2 * d);
  }
  const N = BigInt(n);
  const D = BigInt(d);
  return Number((2n * N + D) / (2n * D));
}

/** `amount x rate` rounded half up, amount a non-negative integer. */
export function mulRateHalfUp(amount: number, r: Rate): number {
  const n = amount * r.p;
  return Number.isSafeInteger(n) ? halfUp(n, r.q) : halfUp(BigInt(amount) * BigInt(r.p), r.q);
}

/** Exact `amount x rate` as a string. */
export function mulRateExact(amount: number, r: Rate): string {
  if (amount === 0 || r.p === 0) return '0';
  const s = amount * r.scaled;
  if (Number.isSafeInteger(s)) return scaledDecimal(s, r.scale, r.places);
  const n = amount * r.p;
  return Number.isSafeInteger(n) ? formatExact(n, r.q) : formatExact(BigInt(amount) * BigInt(r.p), BigInt(r.q));
}

/** Does d (> 0) divide a power of ten? Then n/d has a terminating decimal. */
function decimalPlaces(d: number): number {
  let twos = 0;
  let fives = 0;
  while (d % 2 === 0) { d /= 2; twos++; }
  while (d % 5 === 0) { d /= 5; fives++; }
  return d === 1 ? Math.max(twos, fives) : -1;
}

/**
 * n/d (n >= 0, d > 0) as an exact string: the integer ("1080000"), the terminating decimal
 * ("308642.5") or the reduced rational ("22444331/6").
 */
export function formatExact(n: number | bigint, d: number | bigint): string {
  if (typeof n === 'number' && typeof d === 'number') {
    if (n === 0) return '0';
    if (n % d === 0) return String(n / d);
    const g = gcd(n, d);
    const nn = n / g;
    const dd = d / g;
    if (dd === 1) return String(nn);
    const places = decimalPlaces(dd);
    if (places < 0) return `${nn}/${dd}`;
    const scale = 10 ** places;
    const scaled = nn * (scale / dd);
    if (Number.isSafeInteger(scaled)) {
      const whole = floorDiv(scaled, scale);
      let f = scaled - whole * scale;
      let p = places;
      while (f % 10 === 0) { f /= 10; p--; }
      const frac = String(f);
      return `${whole}.${frac.length < p ? '0'.repeat(p - frac.length) + frac : frac}`;
    }
    return formatExact(BigInt(n), BigInt(d));
  }
  const N = BigInt(n);
  const D = BigInt(d);
  if (N === 0n) return '0';
  const g = gcdBig(N, D);
  const nn = N / g;
  const dd = D / g;
  if (dd === 1n) return String(nn);
  let t = dd;
  let twos = 0;
  let fives = 0;
  while (t % 2n === 0n) { t /= 2n; twos++; }
  while (t % 5n === 0n) { t /= 5n; fives++; }
  if (t !== 1n) return `${nn}/${dd}`;
  const places = Math.max(twos, fives);
  const scale = 10n ** BigInt(places);
  const scaled = nn * (scale / dd);
  const whole = scaled / scale;
  const frac = String(scaled - whole * scale).padStart(places, '0').replace(/0+$/, '');
  return `${whole}.${frac}`;
}

/** n/d - m (m an integer) as an exact string; may be negative (a PAYE refund). */
export function subExact(n: number, d: number, m: number): string {
  const diff = n - m * d;
  if (Number.isSafeInteger(diff) && Number.isSafeInteger(m * d)) {
    return diff < 0 ? '-' + formatExact(-diff, d) : formatExact(diff, d);
  }
  const D = BigInt(d);
  const big = BigInt(n) - BigInt(m) * D;
  return big < 0n ? '-' + formatExact(-big, D) : formatExact(big, D);
}
