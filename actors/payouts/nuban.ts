/**
 * NUBAN check digit (../shared/reference/ng-payouts-remittance.md section 3.3), in-house as the
 * reference recommends. 2010 standard [P]: weights 3,7,3 repeated over the 3-digit CBN bank code and
 * the 9-digit serial; sum mod 10, subtracted from 10, 10 becomes 0. 2020 revision [S]: 15 digits,
 * a DMB's 3-digit code padded with 000, an OFI's 5-digit code prefixed with 9; for a DMB it equals
 * the 2010 rule. The check only tests (bank code, account) consistency; name enquiry still runs.
 */
const WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];

/** The 6-digit institution part of the 2020 rule, or undefined for a code that is not a CBN code. */
export function nubanInstitution(bankCode: string): string | undefined {
  if (/^\d{3}$/.test(bankCode)) return `000${bankCode}`;
  if (/^\d{5}$/.test(bankCode)) return `9${bankCode}`;
  return undefined;
}

/** The check digit of a 9-digit serial at a CBN bank code (3-digit DMB or 5-digit OFI). */
export function nubanCheckDigit(bankCode: string, serial: string): number {
  const inst = nubanInstitution(bankCode);
  if (!inst || !/^\d{9}$/.test(serial)) throw new RangeError(`NUBAN needs a 3- or 5-digit CBN code and a 9-digit serial (got ${bankCode}, ${serial})`);
  const digits = inst + serial;
  let sum = 0;
  for (let i = 0; i < 15; i++) sum += (digits.charCodeAt(i) - 48) * WEIGHTS[i];
  const d = 10 - (sum % 10);
  return d === 10 ? 0 : d;
}

/** True when the 10-digit account number's check digit agrees with its bank code. */
export function isValidNuban(bankCode: string, accountNumber: string): boolean {
  if (!nubanInstitution(bankCode) || !/^\d{10}$/.test(accountNumber)) return false;
  return nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === accountNumber.charCodeAt(9) - 48;
}

/** A 10-digit NUBAN for a serial (tests, the bench and the sandbox's documented accounts). */
export const nuban = (bankCode: string, serial: string): string => `${serial}${nubanCheckDigit(bankCode, serial)}`;
