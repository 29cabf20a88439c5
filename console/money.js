// Money as the page shows it: an amount in its currency's minor units, as GET /v1/currencies gives
// them (spec 2.1 Money: never an assumed 100), and the amounts the API's plain words give in kobo (a
// refusal's "gross (54000000 kobo)", a payslip explanation's "21333218 x 2/12 = 10666609/3 kobo")
// in naira, so one figure is never shown two ways.

/** Places shown of an exact amount that has no end in decimals (a fraction such as 10666609/3). */
const MORE_PLACES = 4;
/** An exact amount in minor units as the API writes one: whole, decimal or a fraction. */
const EXACT = String.raw`-?\d+(?:\.\d+)?(?:\/\d+)?`;
/** A formula of the explanation: an amount in minor units times a fraction, equal to an exact amount. */
const FORMULA = new RegExp(String.raw`(?<![\d.\/])(-?\d+) x (\d+\/\d+) = (${EXACT}) kobo`, 'g');
const AMOUNT = new RegExp(String.raw`(?<![\d.\/])(${EXACT}) kobo`, 'g');

export class MoneyFormat {
  constructor(currencies) { this.digits = new Map(currencies.map((c) => [c.code, c.minor_unit_digits])); }

  format(m) {
    if (!m || typeof m.amount !== 'number') return '';
    const d = this.digits.get(m.currency);
    if (d === undefined) return `${m.amount} (minor units of ${m.currency})`;
    const major = m.amount / 10 ** d;
    return `${m.currency} ${major.toLocaleString('en-NG', { minimumFractionDigits: d, maximumFractionDigits: d })}`;
  }

  /**
   * An exact amount in minor units ("21333217.5", "10666609/3") in major units with every digit it
   * has (at least the currency's places; a fraction without end to MORE_PLACES more, then "…").
   */
  exact(text, currency) {
    const d = this.digits.get(currency);
    if (d === undefined) return `${text} (minor units of ${currency})`;
    const [num, den = '1'] = String(text).split('/');
    const neg = num.startsWith('-');
    const [whole, frac = ''] = num.replace('-', '').split('.');
    const divisor = BigInt(den) * 10n ** BigInt(frac.length + d);
    const places = den === '1' ? frac.length + d : d + MORE_PLACES;
    const top = BigInt(whole + frac) * 10n ** BigInt(places);
    const scaled = top / divisor;
    const unit = 10n ** BigInt(places);
    const decimals = (scaled % unit).toString().padStart(places, '0').replace(/0+$/, '').padEnd(d, '0');
    const more = top % divisor !== 0n ? '…' : '';
    return `${currency} ${neg && scaled !== 0n ? '-' : ''}${(scaled / unit).toLocaleString('en-NG')}${decimals ? `.${decimals}` : ''}${more}`;
  }

  /** The API's plain words with each amount it gives in kobo in naira. */
  inText(text) {
    const ngn = (x) => this.exact(x, 'NGN');
    return String(text ?? '')
      .replace(FORMULA, (_, a, k, b) => `${ngn(a)} x ${k} = ${ngn(b)}`)
      .replace(AMOUNT, (_, a) => ngn(a));
  }
}
