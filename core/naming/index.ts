export { fold, caselessEqual, compareCaseless, compareCodePoints } from "./fold";
export { validateObjectName, isNameControlCharacter, isWhiteSpace } from "./object-name";
export { escapeDnValue, unescapeDnValue, composeDn, type DnComponent } from "./dn";
export {
  isDefinitionName,
  isNamespaceName,
  isDnPrefix,
  isReservedDefinitionName,
  isReservedNamespaceName,
  wireName,
  parseWireName,
  validateDefinitionName,
  validateNamespaceName,
  validateDnPrefix,
} from "./definition-name";
export { splitPath, joinPath } from "./path";
export { utf8ByteLength, isWellFormedUtf16 } from "./utf8";
