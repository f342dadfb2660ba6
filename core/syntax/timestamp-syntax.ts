import { assert } from "../assert";
import { type Result, ok, refuse } from "../errors";

/**
 * `timestamp` (and every stamp's `at`): ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`.
 * Decisions where SPEC is silent:
 * - Only the 'T' and 'Z' letters in upper case, only 'Z' as the zone (no offsets), years
 *   0000-9999 (proleptic Gregorian, so 0000 is a leap year), no leap second (":60"): stamps
 *   are milliseconds since the epoch, which cannot represent one.
 * - Canonical rendering has exactly 3 fraction digits (milliseconds): longer fractions are
 *   truncated, shorter ones padded, a missing one becomes ".000". Millisecond precision is
 *   what stamps carry, and one instant then has exactly one canonical spelling.
 * No Date anywhere: civil-date arithmetic below is Howard Hinnant's days-from-civil.
 */
const timestampPattern =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z$/;

const msPerDay = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in ms since the epoch. */
export const timestampMsMin = daysFromCivil(0, 1, 1) * msPerDay;
export const timestampMsMax = daysFromCivil(9999, 12, 31) * msPerDay + msPerDay - 1;

export function parseTimestamp(raw: string): Result<string> {
  const m = timestampPattern.exec(raw);
  if (m === null) {
    return refuse(
      "syntax-violation",
      "timestamp value must be ISO 8601 UTC: YYYY-MM-DDTHH:MM:SS[.fraction]Z",
    );
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  assert(second !== undefined && minute !== undefined && hour !== undefined, "six fields");
  assert(year !== undefined && month !== undefined && day !== undefined, "six fields");
  if (month < 1 || month > 12) return refuse("syntax-violation", "timestamp month must be 01-12");
  if (day < 1 || day > daysInMonth(year, month)) {
    return refuse("syntax-violation", "timestamp day does not exist in that month");
  }
  if (hour > 23) return refuse("syntax-violation", "timestamp hour must be 00-23");
  if (minute > 59) return refuse("syntax-violation", "timestamp minute must be 00-59");
  if (second > 59) {
    return refuse("syntax-violation", "timestamp second must be 00-59 (no leap seconds)");
  }
  const millis = ((m[7] ?? "") + "000").slice(0, 3);
  return ok(`${raw.slice(0, 19)}.${millis}Z`);
}

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant, "chrono-Compatible"). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Milliseconds since the epoch of a canonical timestamp (as returned by parseTimestamp). */
export function timestampToMs(canonical: string): number {
  const m = timestampPattern.exec(canonical);
  assert(m !== null && m[7]?.length === 3, `canonical timestamp: ${canonical}`);
  const [year, month, day, hour, minute, second, millis] = m.slice(1, 8).map(Number);
  assert(year !== undefined && month !== undefined && day !== undefined, "date fields");
  assert(hour !== undefined && minute !== undefined && second !== undefined, "time fields");
  assert(millis !== undefined, "millisecond field");
  const dayMs = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return daysFromCivil(year, month, day) * msPerDay + dayMs;
}

/** The canonical timestamp of an integer millisecond count within years 0000-9999. */
export function msToTimestamp(ms: number): string {
  assert(Number.isSafeInteger(ms), `timestamp ms is an integer: ${ms}`);
  assert(ms >= timestampMsMin && ms <= timestampMsMax, `timestamp ms in range: ${ms}`);
  // The stamps of one write share their instant, and most stamps share a few days: one
  // memo entry for the last instant and one for the last day's date part.
  if (ms === lastMs) return lastText;
  const days = Math.floor(ms / msPerDay);
  if (days !== lastDays) {
    const { year, month, day } = civilFromDays(days);
    lastDatePart = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T`;
    lastDays = days;
  }
  let rest = ms - days * msPerDay;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  const text =
    `${lastDatePart}${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(millis, 3)}Z`;
  // Well-formed by construction within the asserted range (the tests check it against
  // timestampPattern); the length is the cheap always-on check.
  assert(text.length === 24, `rendered timestamp has 24 characters: ${text}`);
  lastMs = ms;
  lastText = text;
  return text;
}

let lastMs = Number.NaN;
let lastText = "";
let lastDays = Number.NaN;
let lastDatePart = "";

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
