/**
 * Scenario files whose faults touch pull cycles most: rollbacks (cycles resumed under retired
 * invocations), schema arriving before its dependencies, partitions with writes on both sides,
 * move cycles and tombstone ageing. Tests that run replication another way (every message on
 * the wire, objects in parts) run these and compare or check them.
 */
export const pullCycleScenarios: readonly string[] = [
  "scenarios/rollback-heal.scn",
  "scenarios/line-five-rollback.scn",
  "scenarios/schema-before-dependencies.scn",
  "scenarios/partition-three-two.scn",
  "scenarios/move-cycle-three.scn",
  "scenarios/gc-under-chaos.scn",
];
