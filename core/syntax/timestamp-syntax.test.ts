// Goal: the timestamp syntax accepts exactly the documented ISO 8601 UTC form, renders one
// canonical spelling per millisecond, and the Date-free arithmetic agrees with Date.
// Method: edge-case tables; fast-check with Date as the oracle (allowed in tests only):
// calendar validity via Date.UTC, ms conversion via getTime/toISOString, round trips.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  msToTimestamp,
  parseTimestamp,
  timestampMsMax,
  timestampMsMin,
  timestampToMs,
} from "./timestamp-syntax";

describe("parseTimestamp: table", () => {
  it.each([
    ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000Z"],
    ["2024-01-02T03:04:05.1Z", "2024-01-02T03:04:05.100Z"],
    ["2024-01-02T03:04:05.12Z", "2024-01-02T03:04:05.120Z"],
    ["2024-01-02T03:04:05.123Z", "2024-01-02T03:04:05.123Z"],
    ["2024-01-02T03:04:05.123999999Z", "2024-01-02T03:04:05.123Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["2000-02-29T23:59:59Z", "2000-02-29T23:59:59.000Z"],
    ["0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
  ])("accepts %j as %j", (raw, canonical) => {
    expect(parseTimestamp(raw)).toEqual({ ok: true, value: canonical });
  });

  it.each([
    ["2023-02-29T00:00:00Z", "day"],
    ["1900-02-29T00:00:00Z", "day"],
    ["2024-04-31T00:00:00Z", "day"],
    ["2024-01-00T00:00:00Z", "day"],
    ["2024-00-10T00:00:00Z", "month"],
    ["2024-13-10T00:00:00Z", "month"],
    ["2024-01-01T24:00:00Z", "hour"],
    ["2024-01-01T00:60:00Z", "minute"],
    ["2016-12-31T23:59:60Z", "leap"],
    ["2024-01-01T00:00:00", "ISO 8601"],
    ["2024-01-01T00:00:00+00:00", "ISO 8601"],
    ["2024-01-01t00:00:00z", "ISO 8601"],
    ["2024-01-01 00:00:00Z", "ISO 8601"],
    ["2024-01-01T00:00:00.Z", "ISO 8601"],
    ["2024-01-01T00:00:00.1234567890Z", "ISO 8601"],
    ["2024-01-01T00:00Z", "ISO 8601"],
    ["2024-1-01T00:00:00Z", "ISO 8601"],
    ["+002024-01-01T00:00:00Z", "ISO 8601"],
    ["20240101T000000Z", "ISO 8601"],
    ["", "ISO 8601"],
  ])("refuses %j (%s)", (raw, reason) => {
    const r = parseTimestamp(raw);
    expect(r).toMatchObject({ ok: false, code: "syntax-violation" });
    if (!r.ok) expect(r.message).toContain(reason);
  });
});

const msInRange = fc.integer({ min: timestampMsMin, max: timestampMsMax });

describe("ms conversions", () => {
  it("has the range bounds of years 0000 and 9999", () => {
    expect(timestampMsMin).toBe(Date.parse("0000-01-01T00:00:00.000Z"));
    expect(timestampMsMax).toBe(Date.parse("9999-12-31T23:59:59.999Z"));
    expect(msToTimestamp(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(msToTimestamp(-1)).toBe("1969-12-31T23:59:59.999Z");
  });
  it("msToTimestamp agrees with Date.prototype.toISOString", () => {
    fc.assert(
      fc.property(msInRange, (ms) => msToTimestamp(ms) === new Date(ms).toISOString()),
      { numRuns: 5000 },
    );
  });
  it("msToTimestamp agrees with toISOString along runs of nearby instants (its memo)", () => {
    const run = fc.tuple(
      msInRange,
      fc.array(fc.integer({ min: -2 * 86_400_000, max: 2 * 86_400_000 }), { maxLength: 20 }),
    );
    fc.assert(
      fc.property(run, ([start, steps]) => {
        let ms = start;
        for (const step of [0, 0, ...steps, 0]) {
          ms = Math.min(timestampMsMax, Math.max(timestampMsMin, ms + step));
          if (msToTimestamp(ms) !== new Date(ms).toISOString()) return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });
  it("timestampToMs inverts msToTimestamp", () => {
    fc.assert(fc.property(msInRange, (ms) => timestampToMs(msToTimestamp(ms)) === ms), {
      numRuns: 5000,
    });
  });
  it("asserts on non-integer or out-of-range ms and non-canonical text", () => {
    expect(() => msToTimestamp(1.5)).toThrow(/integer/);
    expect(() => msToTimestamp(timestampMsMax + 1)).toThrow(/range/);
    expect(() => msToTimestamp(timestampMsMin - 1)).toThrow(/range/);
    expect(() => timestampToMs("2024-01-01T00:00:00Z")).toThrow(/canonical/);
  });
});

describe("parseTimestamp: properties", () => {
  it("accepts every toISOString rendering as its own canonical form", () => {
    fc.assert(
      fc.property(msInRange, (ms) => {
        const iso = new Date(ms).toISOString();
        const r = parseTimestamp(iso);
        return r.ok && r.value === iso && timestampToMs(r.value) === ms;
      }),
      { numRuns: 3000 },
    );
  });
  it("truncates or pads any fraction of 0-9 digits to milliseconds", () => {
    const fraction = fc.stringMatching(/^[0-9]{0,9}$/);
    fc.assert(
      fc.property(msInRange, fraction, (ms, f) => {
        const iso = new Date(ms).toISOString();
        const raw = iso.slice(0, 19) + (f === "" ? "" : `.${f}`) + "Z";
        const r = parseTimestamp(raw);
        const expected = `${iso.slice(0, 19)}.${(f + "000").slice(0, 3)}Z`;
        return r.ok && r.value === expected && parseTimestamp(expected).ok;
      }),
    );
  });
  it("accepts a calendar date exactly when Date agrees it exists", () => {
    const p = (n: number, w: number): string => String(n).padStart(w, "0");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (y, m, d) => {
          const date = new Date(0);
          date.setUTCFullYear(y, m - 1, d);
          const exists =
            m >= 1 && m <= 12 && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
          return parseTimestamp(`${p(y, 4)}-${p(m, 2)}-${p(d, 2)}T12:00:00Z`).ok === exists;
        },
      ),
      { numRuns: 5000 },
    );
  });
});
