/** Kobo as the API's Money (spec 2.1): every payroll figure is NGN, the rule pack's currency. */
export const ngn = (amount: number) => ({ amount, currency: 'NGN' });
