// Goal: the endpoint syntax enforces every rule of SPEC "Value syntaxes and matching"
// (host forms, labels, IPv4/IPv6 literals, ports, no scheme/whitespace) and keeps the value
// as given. Method: a table with one row per SPEC bullet edge; fast-check over generated
// valid endpoints (fc.domain/ipV4/ipV6 plus ports), generated invalid mutations, and the
// RFC 3986 IPv6address ABNF as an independent regex oracle for isIpv6.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { endpointHost, endpointPort, isIpv6, parseEndpoint } from "./endpoint-syntax";

const label63 = "a".repeat(63);
/** A host of exactly n bytes made of 63-byte labels (n must not end on a dot). */
function hostOfLength(n: number): string {
  let host = "";
  while (host.length < n) {
    const room = n - host.length - (host.length === 0 ? 0 : 1);
    host += (host.length === 0 ? "" : ".") + "b".repeat(Math.min(63, room));
  }
  return host;
}

describe("parseEndpoint: table", () => {
  it.each([
    ["example.com"], ["Example.COM"], ["example.com:5390"], ["h"], ["h:1"], ["h:65535"],
    ["xn--bcher-kva.example"], ["1.2.3.4"], ["255.255.255.255:80"], ["0.0.0.0"],
    ["[::1]"], ["[::1]:5390"], ["[2001:DB8::1]:443"], ["[::ffff:192.0.2.1]"], ["[::]"],
    ["[1:2:3:4:5:6:7:8]"], ["[1:2:3:4:5:6:1.2.3.4]"], ["[1::2:3:4:5:6:7]"], ["3com.net"],
    ["a-b.c--d.e"], [`${label63}.com`], [hostOfLength(253)], ["a.b.c1"], ["host.123abc"],
  ])("accepts %j unchanged", (v) => {
    expect(parseEndpoint(v)).toEqual({ ok: true, value: v });
  });

  it.each([
    ["", "empty"],
    ["1.2.3.04", "IPv4"],
    ["01.2.3.4", "IPv4"],
    ["1.2.3", "IPv4"],
    ["1.2.3.4.5", "IPv4"],
    ["256.1.1.1", "IPv4"],
    ["123", "IPv4"],
    ["a.b.123", "IPv4"],
    ["[fe80::1%eth0]", "zone"],
    ["[fe80::1%25eth0]:5390", "zone"],
    ["host:05390", "port"],
    ["host:0", "port"],
    ["host:65536", "port"],
    ["host:", "port"],
    ["host:-1", "port"],
    ["host:+80", "port"],
    ["host:80a", "port"],
    ["a-.com", "labels"],
    ["-a.com", "labels"],
    ["a_b.com", "labels"],
    [`${"a".repeat(64)}.com`, "label"],
    [hostOfLength(254), "253"],
    ["example.com.", "'.'"],
    ["a..b", "empty label"],
    [".a", "empty label"],
    ["http://x", "scheme"],
    ["udp://x:5390", "scheme"],
    ["a b", "whitespace"],
    [" a", "whitespace"],
    ["a\t", "whitespace"],
    ["a:5390 ", "whitespace"],
    ["a\u00a0b", "whitespace"],
    ["bücher.example", "ASCII"],
    ["user@host", "userinfo"],
    ["host/path", "path"],
    ["host:80/", "path"],
    ["host?q", "path"],
    ["::1", "bracketed"],
    ["fe80::1:5390", "bracketed"],
    ["[::1", "']'"],
    ["[::1]5390", "host[:port]"],
    ["[::1]:", "port"],
    ["[1.2.3.4]", "IPv6"],
    ["[example.com]", "IPv6"],
    ["[1:2:3:4:5:6:7:8:9]", "IPv6"],
    ["[1::2::3]", "IPv6"],
    ["[12345::1]", "IPv6"],
    ["[::1.2.3.04]", "IPv6"],
    ["[1:2:3:4:5:6:7::8]", "IPv6"],
    ["[]", "IPv6"],
    ["a]b", "host[:port]"],
  ])("refuses %j (%s)", (v, reason) => {
    const r = parseEndpoint(v);
    expect(r).toMatchObject({ ok: false, code: "syntax-violation" });
    if (!r.ok) expect(r.message).toContain(reason);
  });
});

describe("endpointHost and endpointPort", () => {
  it("defaults the port to 5390 without folding it into the value", () => {
    expect(endpointPort("h")).toBe(5390);
    expect(endpointPort("h:5390")).toBe(5390);
    expect(endpointPort("h:1")).toBe(1);
    expect(endpointPort("[::1]")).toBe(5390);
    expect(endpointPort("[::1]:7")).toBe(7);
    expect(parseEndpoint("h")).not.toEqual(parseEndpoint("h:5390"));
  });
  it("returns the host, unbracketed for IPv6", () => {
    expect(endpointHost("Example.com:80")).toBe("Example.com");
    expect(endpointHost("1.2.3.4")).toBe("1.2.3.4");
    expect(endpointHost("[::1]:80")).toBe("::1");
  });
});

const host = fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6().map((a) => `[${a}]`));
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: null });
const endpoint = fc
  .tuple(host, port, fc.boolean())
  .map(([h, p, upper]) => (upper ? h.toUpperCase() : h) + (p === null ? "" : `:${p}`));

describe("parseEndpoint: properties", () => {
  it("accepts generated endpoints unchanged and idempotently", () => {
    fc.assert(
      fc.property(endpoint, (v) => {
        const r = parseEndpoint(v);
        return r.ok && r.value === v && parseEndpoint(r.value).ok;
      }),
      { numRuns: 2000 },
    );
  });
  it("splits generated endpoints into host and port", () => {
    fc.assert(
      fc.property(host, port, (h, p) => {
        const v = h + (p === null ? "" : `:${p}`);
        return endpointHost(v) === h.replace(/^\[(.*)\]$/, "$1") && endpointPort(v) === (p ?? 5390);
      }),
    );
  });
  it("refuses any generated endpoint with whitespace inserted", () => {
    const ws = fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2003");
    fc.assert(
      fc.property(endpoint, ws, fc.nat(), (v, w, i) => {
        const at = i % (v.length + 1);
        return !parseEndpoint(v.slice(0, at) + w + v.slice(at)).ok;
      }),
    );
  });
  it("refuses ports with leading zeros or out of range", () => {
    const badPort = fc.oneof(
      fc.integer({ min: 0, max: 65535 }).map((n) => `0${n}`),
      fc.integer({ min: 65536, max: 10_000_000 }).map(String),
    );
    fc.assert(fc.property(host, badPort, (h, p) => !parseEndpoint(`${h}:${p}`).ok));
  });
  it("refuses IPv4 literals with a leading-zero octet", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 3 }), (ip, i) => {
        const octets = ip.split(".");
        octets[i] = `0${octets[i] ?? ""}`;
        return !parseEndpoint(octets.join(".")).ok;
      }),
    );
  });
  it("refuses unbracketed IPv6 and zone ids", () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.stringMatching(/^[a-z0-9]{1,8}$/), (ip, zone) => {
        return !parseEndpoint(ip).ok && !parseEndpoint(`[${ip}%${zone}]`).ok;
      }),
    );
  });
});

/** RFC 3986 section 3.2.2 IPv6address, written out as a regex (independent of isIpv6). */
const h16 = "[0-9A-Fa-f]{1,4}";
const dec = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const ls32 = `(?:${h16}:${h16}|${dec}\\.${dec}\\.${dec}\\.${dec})`;
const pre = (n: number): string => (n < 0 ? "" : `(?:(?:${h16}:){0,${n}}${h16})?`);
const rfc3986Ipv6 = new RegExp(
  "^(?:" +
    [
      `(?:${h16}:){6}${ls32}`,
      `::(?:${h16}:){5}${ls32}`,
      `${pre(0)}::(?:${h16}:){4}${ls32}`,
      `${pre(1)}::(?:${h16}:){3}${ls32}`,
      `${pre(2)}::(?:${h16}:){2}${ls32}`,
      `${pre(3)}::${h16}:${ls32}`,
      `${pre(4)}::${ls32}`,
      `${pre(5)}::${h16}`,
      `${pre(6)}::`,
    ].join("|") +
    ")$",
);

describe("isIpv6", () => {
  it("agrees with the RFC 3986 grammar on generated and mutated addresses", () => {
    const insert = fc.constantFrom("", ":", "::", ".", "0", "f", "1.2");
    const mutated = fc.tuple(fc.ipV6(), fc.nat(), insert)
      .map(([ip, i, s]) => {
        const at = i % (ip.length + 1);
        return ip.slice(0, at) + s + ip.slice(at + (s === "" ? 1 : 0));
      });
    const noiseChar = fc.constantFrom("0", "1", "a", "F", ":", ".", "2", "5");
    const noise = fc.string({ unit: noiseChar, maxLength: 24 });
    fc.assert(
      fc.property(fc.oneof(fc.ipV6(), mutated, noise), (s) => isIpv6(s) === rfc3986Ipv6.test(s)),
      { numRuns: 5000 },
    );
  });
});
