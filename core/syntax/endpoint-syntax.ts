import { assert } from "../assert";
import { type Result, ok, refuse } from "../errors";
import { limits } from "../limits";

/**
 * `endpoint`: `host[:port]` under every rule of SPEC "Value syntaxes and matching". The
 * canonical rendering is the value as given: SPEC compares endpoints caselessly as opaque
 * strings, so the stored spelling is kept, and "h" and "h:5390" stay distinct members (the
 * default port is never folded in). Decisions where SPEC is silent: userinfo ('@'), paths,
 * queries and fragments are refused like schemes; a DNS label may start with a digit
 * (RFC 1123); "::" may stand for a single zero group (RFC 4291 allows it); an embedded IPv4
 * tail in an IPv6 literal follows the IPv4 rules, so its octets refuse leading zeros too.
 */
export function parseEndpoint(raw: string): Result<string> {
  const shape = refuseForeignShapes(raw);
  if (shape !== null) return refuse("syntax-violation", shape);
  const split = splitHostPort(raw);
  if (typeof split === "string") return refuse("syntax-violation", split);
  const hostProblem = split.bracketed ? ipv6Problem(split.host) : hostNameProblem(split.host);
  if (hostProblem !== null) return refuse("syntax-violation", hostProblem);
  if (split.port !== null && !isPort(split.port)) {
    return refuse("syntax-violation", "endpoint port must be 1-65535 without leading zeros");
  }
  return ok(raw);
}

/** The interlink port of a canonical endpoint: its explicit port, else the default 5390. */
export function endpointPort(canonical: string): number {
  const split = splitHostPort(canonical);
  assert(typeof split !== "string", `canonical endpoint: ${canonical}`);
  return split.port === null ? limits.defaultInterlinkPort : Number(split.port);
}

/** The host of a canonical endpoint; an IPv6 literal comes back without its brackets. */
export function endpointHost(canonical: string): string {
  const split = splitHostPort(canonical);
  assert(typeof split !== "string", `canonical endpoint: ${canonical}`);
  return split.host;
}

/** Rules that apply to the whole text, with messages that name what the user wrote. */
function refuseForeignShapes(raw: string): string | null {
  if (raw.length === 0) return "endpoint value must not be empty";
  if (/\s/.test(raw)) return "endpoint value must not contain whitespace";
  if (raw.includes("://")) return "endpoint value must not have a scheme";
  if (/[^\x21-\x7e]/.test(raw)) return "endpoint value must be ASCII (use punycode for IDNs)";
  if (raw.includes("@")) return "endpoint value must not have userinfo";
  if (/[/?#]/.test(raw)) return "endpoint value must not have a path, query or fragment";
  return null;
}

type HostPort = { host: string; bracketed: boolean; port: string | null };

function splitHostPort(raw: string): HostPort | string {
  if (raw.startsWith("[")) {
    const close = raw.indexOf("]");
    if (close < 0) return "endpoint IPv6 literal is missing ']'";
    const rest = raw.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return "endpoint must be host[:port]";
    return { host: raw.slice(1, close), bracketed: true, port: rest === "" ? null : rest.slice(1) };
  }
  const colons = raw.split(":").length - 1;
  if (colons > 1) return "endpoint IPv6 literal must be bracketed, e.g. [::1]:5390";
  if (raw.includes("[") || raw.includes("]")) return "endpoint must be host[:port]";
  const colon = raw.indexOf(":");
  if (colon < 0) return { host: raw, bracketed: false, port: null };
  return { host: raw.slice(0, colon), bracketed: false, port: raw.slice(colon + 1) };
}

function isPort(text: string): boolean {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return false;
  const n = Number(text);
  return n >= limits.portMin && n <= limits.portMax;
}

const dnsLabelPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

function hostNameProblem(host: string): string | null {
  if (host.length === 0) return "endpoint host must not be empty";
  if (host.endsWith(".")) return "endpoint host must not end with '.'";
  if (host.length > limits.dnsNameBytesMax) {
    return `endpoint host is ${host.length} bytes; at most ${limits.dnsNameBytesMax}`;
  }
  const labels = host.split(".");
  for (const label of labels) {
    if (label.length === 0) return "endpoint host has an empty label";
    if (label.length > limits.dnsLabelBytesMax) {
      return `endpoint host label is ${label.length} bytes; at most ${limits.dnsLabelBytesMax}`;
    }
    if (!dnsLabelPattern.test(label)) {
      return "endpoint host labels are letters, digits and interior hyphens";
    }
  }
  const last = labels[labels.length - 1] ?? "";
  if (/^[0-9]+$/.test(last) && !isIpv4(host)) {
    return (
      "endpoint host ending in an all-digit label must be an IPv4 literal " +
      "(four octets 0-255, no leading zeros)"
    );
  }
  return null;
}

/** Dotted-quad IPv4: four decimal octets 0-255, no leading zeros. */
export function isIpv4(text: string): boolean {
  const octets = text.split(".");
  const octet = (o: string): boolean => /^(?:0|[1-9][0-9]{0,2})$/.test(o) && Number(o) <= 255;
  return octets.length === 4 && octets.every(octet);
}

const hexGroupPattern = /^[0-9A-Fa-f]{1,4}$/;

function ipv6Problem(text: string): string | null {
  if (text.includes("%")) return "endpoint IPv6 zone ids are refused";
  return isIpv6(text) ? null : "endpoint IPv6 literal is not a valid RFC 4291 address";
}

/** RFC 4291 section 2.2 text forms: 8 groups, one optional "::", optional IPv4 tail. */
export function isIpv6(text: string): boolean {
  const sides = text.split("::");
  if (sides.length > 2) return false;
  const compressed = sides.length === 2;
  const head = sides[0] === "" || sides[0] === undefined ? [] : sides[0].split(":");
  const tail = !compressed || sides[1] === "" ? [] : (sides[1] ?? "").split(":");
  const all = [...head, ...tail];
  // An IPv4 tail may only close the address, i.e. be the last element of the last side.
  const lastSide = compressed ? tail : head;
  let groups = 0;
  for (let i = 0; i < all.length; i++) {
    const element = all[i] ?? "";
    const closes = i === all.length - 1 && lastSide.length > 0;
    if (closes && element.includes(".")) {
      if (!isIpv4(element)) return false;
      groups += 2;
    } else if (hexGroupPattern.test(element)) groups += 1;
    else return false;
  }
  return compressed ? groups <= 7 : groups === 8;
}
