// A probability as a player reads it, the same in the web view (odds under a form)
// and in the Foundry module (the odds card): a percentage in the reader's language
// and number format (13.9%, 13,9 %) that reads 0 % only when the chance is exactly
// 0 and 100 % only when it is exactly 1 (docs/web.md, "Odds"; docs/foundry.md,
// "Odds before a roll").
//
// The server's odds give each probability exactly ("probability": "p/q") with its
// float beside it, and, where that float reads 0.0 though the outcome can happen
// (below about 10^-324: the least total of 999d6kh1 is 6^-999), its base-10
// logarithm as `log10` (`truncated_log10` for what the explosion depth cut off;
// docs/dice.md, "Exact odds"). A float also reads 1.0 for a chance a hair below 1
// (999d6kh1's 6, 1 - (5/6)^999). So whether a chance is exactly 0 or 1 is read from
// its fraction, and from the float and `log10` only where there is no fraction.

/** The least chance a percentage shows as a number: below it, "< 0.01 %". */
export const TINY = 0.0001;

/** The most chance short of 1 a percentage shows as a number: above it, "> 99.9 %". */
const NEAR_ONE = 0.999;

/** "p/q" (or "p") as [p, q] BigInts, or null. */
export function parseFraction(text) {
  const match = /^\s*(-?\d+)(?:\s*\/\s*(\d+))?\s*$/.exec(String(text ?? ""));
  if (!match) return null;
  const q = BigInt(match[2] ?? "1");
  return q === 0n ? null : [BigInt(match[1]), q];
}

/** Whether a number was given (not null, undefined or text that is no number). */
function given(value) {
  return value !== null && value !== undefined && value !== "" && Number.isFinite(Number(value));
}

/**
 * Whether an odds entry's chance is exactly 0 or exactly 1: from its exact fraction
 * where it has one, else from its float (a float of 0 with a `log10` is not 0).
 * @param {{float?: number, log10?: number, probability?: string}} entry
 * @returns {{zero: boolean, one: boolean}}
 */
export function exactness({ float, log10, probability } = {}) {
  const fraction = parseFraction(probability);
  if (fraction) return { zero: fraction[0] === 0n, one: fraction[0] === fraction[1] };
  const number = Number(float);
  return { zero: number === 0 && !given(log10), one: number === 1 };
}

function format(value, lang, digits) {
  try {
    return value.toLocaleString(lang, { style: "percent", ...digits });
  } catch {
    return `${(value * 100).toFixed(1)} %`;
  }
}

const ONE_PLACE = { maximumFractionDigits: 1 };
const TWO_DIGITS = { maximumSignificantDigits: 2 };

/**
 * A probability (0…1) as a percentage in `lang`: one decimal from 1 % up (13.9%),
 * two significant digits below (1/7776 is 0.013%), "< 0.01%" below that and
 * "> 99.9%" above 99.9 %; 0 % and 100 % only when `zero` or `one` says the chance
 * is exactly that (by default: when the number is 0 or 1). A dash for no number.
 * @param {number} value
 * @param {string} [lang]
 * @param {{zero?: boolean, one?: boolean}} [exact]
 * @returns {string}
 */
export function percent(value, lang = "en", { zero, one } = {}) {
  const number = Number(value);
  if (!given(value)) return "–";
  if (zero ?? number === 0) return format(0, lang, ONE_PLACE);
  if (one ?? number === 1) return format(1, lang, ONE_PLACE);
  if (number < TINY) return `< ${format(TINY, lang, TWO_DIGITS)}`;
  if (number > NEAR_ONE) return `> ${format(NEAR_ONE, lang, ONE_PLACE)}`;
  return format(number, lang, number >= 0.01 ? ONE_PLACE : TWO_DIGITS);
}

/**
 * The base-10 logarithm of p/q (both > 0), from their leading digits and their
 * lengths: right where the float of p/q is 0.0 or has lost its digits.
 * @param {bigint[]} fraction [p, q]
 * @returns {number}
 */
function fractionLog10([p, q]) {
  /** @param {bigint} big */
  const lead = (big) => {
    const digits = big.toString();
    return Math.log10(Number(digits.slice(0, 17))) + Math.max(0, digits.length - 17);
  };
  return lead(p) - lead(q);
}

const SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074",
  5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

/**
 * A percentage too small for "< 0.01 %" to say how small, from its base-10
 * logarithm (of the chance, not of the percentage): "≈ 4.3 × 10⁻⁷⁷⁶ %", the
 * mantissa's two significant digits in `lang`'s number format (4,3 in cs, de, ru).
 * @param {number} log10 the chance's base-10 logarithm (below -4)
 * @param {string} [lang]
 * @returns {string}
 */
export function magnitude(log10, lang = "en") {
  const percentLog = Number(log10) + 2;
  let exponent = Math.floor(percentLog);
  let mantissa = Number((10 ** (percentLog - exponent)).toPrecision(2));
  if (mantissa >= 10) {
    mantissa = 1;
    exponent += 1;
  }
  let digits;
  try {
    digits = mantissa.toLocaleString(lang, { maximumSignificantDigits: 2 });
  } catch {
    digits = String(mantissa);
  }
  const power = [...String(exponent)].map((sign) => SUPERSCRIPT[sign]).join("");
  return `\u2248 ${digits} \u00d7 10${power} %`;
}

/**
 * An odds entry's base-10 logarithm: of its fraction, else its `log10`, else its
 * float; null when none says it (or the chance is 0).
 * @param {{float?: number, log10?: number, probability?: string}} entry
 * @returns {number|null}
 */
function entryLog10({ float, log10, probability }) {
  const fraction = parseFraction(probability);
  if (fraction && fraction[0] > 0n) return fractionLog10(fraction);
  if (given(log10)) return Number(log10);
  const number = Number(float);
  return given(float) && number > 0 ? Math.log10(number) : null;
}

/**
 * An odds entry's chance ({float, log10, probability}: an outcome of the server's
 * odds, or a formula's total) as a percentage in `lang` (see percent); one under
 * 0.01 % that can happen says its order of magnitude too, from the entry's own
 * numbers (its fraction, `log10` or float): "< 0.01 % (≈ 4.3 × 10⁻⁷⁷⁶ %)".
 * @param {{float?: number, log10?: number, probability?: string}} entry
 * @param {string} [lang]
 * @returns {string}
 */
export function chance(entry, lang = "en") {
  const exact = exactness(entry);
  const shown = percent(entry?.float, lang, exact);
  if (exact.zero || exact.one || !(Number(entry?.float) < TINY)) return shown;
  const log10 = entryLog10(entry);
  return log10 === null || log10 >= -4 ? shown : `${shown} (${magnitude(log10, lang)})`;
}

/**
 * The mean of a formula's distribution ({mean: "p/q", mean_float}) in `lang`: a
 * whole number as one (14), else two decimals (10.50); "≈ " before it when that is
 * not the exact mean (999d6kh1's, 6 − 1.5 × 10⁻⁷⁹, whose float reads 6.0: "≈ 6";
 * 1d6x's cut-off tail: "≈ 4.20"). Exactness is read from the fraction, else from the
 * float. A dash for no number.
 * @param {{mean?: string, mean_float?: number}} distribution
 * @param {string} [lang]
 * @returns {string}
 */
export function mean({ mean: fraction, mean_float: float } = {}, lang = "en") {
  const exact = parseFraction(fraction);
  let hundredths;
  let isExact;
  if (exact) {
    const [p, q] = exact[1] < 0n ? [-exact[0], -exact[1]] : exact;
    const scaled = p * 100n;
    const whole = scaled / q; // toward zero
    const rest = scaled - whole * q;
    const up = (rest < 0n ? -rest : rest) * 2n >= q ? (scaled < 0n ? -1n : 1n) : 0n;
    hundredths = Number(whole + up);
    isExact = rest === 0n;
  } else if (given(float)) {
    hundredths = Math.round(Number(float) * 100);
    isExact = hundredths === Number(float) * 100;
  } else return "\u2013";
  const value = hundredths / 100;
  const places = Number.isInteger(value) ? 0 : 2;
  let digits;
  try {
    digits = value.toLocaleString(lang, { minimumFractionDigits: places, maximumFractionDigits: places });
  } catch {
    digits = value.toFixed(places);
  }
  return isExact ? digits : `\u2248 ${digits}`;
}

/**
 * What an explosion depth cut off, as an entry of chance: the fields `truncated`,
 * `truncated_float` and `truncated_log10` of a formula's distribution or an
 * action's odds; null when nothing was cut off.
 * @param {{truncated?: string, truncated_float?: number, truncated_log10?: number}} odds
 * @returns {{float: number, log10?: number, probability?: string}|null}
 */
export function truncatedEntry(odds) {
  const entry = { float: Number(odds?.truncated_float) || 0, log10: odds?.truncated_log10, probability: odds?.truncated };
  return exactness(entry).zero ? null : entry;
}
