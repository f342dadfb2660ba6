import { describe, expect, it } from "vitest";
import { Labels, resolveName } from "./run-script-op";

/** Scripted names and expected paths may hold `{@label}`: the GUID bound to the label. */
describe("resolveName", () => {
  const b = "4da165fd-44a4-45b7-9928-7cea05c6ac56";

  it("replaces every {@label} by its GUID and leaves the rest of the name as written", () => {
    const labels = new Labels();
    labels.bind("B", b);
    expect(resolveName(labels, "Stray CNF:{@B} (2)")).toEqual({ ok: true, value: `Stray CNF:${b} (2)` });
    expect(resolveName(labels, "{@B}/{@B}")).toEqual({ ok: true, value: `${b}/${b}` });
    expect(resolveName(labels, "plain {B} @B {@}")).toEqual({ ok: true, value: "plain {B} @B {@}" });
  });

  it("refuses a label no op has bound, naming it", () => {
    const result = resolveName(new Labels(), "x {@Nope}");
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.message).toBe("label @Nope is not bound");
  });
});
