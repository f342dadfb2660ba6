/**
 * TextEncoder/TextDecoder are ECMAScript-adjacent globals present in every runtime the core
 * runs on (Node, browsers). The core's tsconfig carries no DOM or Node types, so declare the
 * small part it uses.
 */
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
