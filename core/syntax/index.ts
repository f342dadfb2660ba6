export { type Syntax, syntaxes, isSyntax, type Matching, matchings, isMatching } from "./syntax";
export { parseValue } from "./parse-value";
export { matchKey } from "./match-key";
export { parseString } from "./string-syntax";
export { parseBoolean } from "./boolean-syntax";
export { parseInteger } from "./integer-syntax";
export {
  parseTimestamp,
  timestampToMs,
  msToTimestamp,
  timestampMsMin,
  timestampMsMax,
} from "./timestamp-syntax";
export { parseReference } from "./reference-syntax";
export { parseEndpoint, endpointHost, endpointPort, isIpv4, isIpv6 } from "./endpoint-syntax";
export { parsePublicKey } from "./public-key-syntax";
