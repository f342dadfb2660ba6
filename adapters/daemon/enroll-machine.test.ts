/**
 * Goal: the enrolled computer object's name is always a valid object name derived from the
 * host name, whatever the host name holds. Method: machineName on ordinary, hostile and empty
 * host names, checked against the core's own name validator.
 */
import { describe, expect, it } from "vitest";
import { validateObjectName } from "../../core/naming";
import { machineName } from "./enroll-machine";

describe("machineName", () => {
  it("keeps an ordinary host name as it is", () => {
    expect(machineName("build-07.example.test")).toBe("build-07.example.test");
  });

  it("replaces characters a name may not hold and trims edge whitespace", () => {
    expect(machineName(" a/b\u0007c ")).toBe("a-b-c");
  });

  it("falls back to localhost when nothing valid is left", () => {
    expect(machineName("")).toBe("localhost");
    expect(machineName("   ")).toBe("localhost");
    expect(machineName("x".repeat(300))).toBe("localhost");
  });

  it("always yields a valid object name", () => {
    for (const host of ["", "/", "\t", "a".repeat(256), "ok", "é\u0085"]) {
      expect(validateObjectName(machineName(host)).ok).toBe(true);
    }
  });
});
