import { DirectoryNode } from "../../core/node/directory-node";
import { KvStore } from "../../core/wal/kv-store";
import { Prng } from "../prng";
import { SimFs } from "../sim-fs";
import { viewDigest } from "./oracles";

/** /LostAndFound's listing as ids and names, the one listing that repairs (not the store) fill. */
function lostAndFoundListing(node: DirectoryNode): string {
  const id = node.dir.landmarks()?.lostAndFound ?? null;
  if (id === null) return "";
  const listing = node.children(id);
  return listing.ok ? listing.value.map((c) => `${c.id}:${c.name}`).join(",") : listing.code;
}

/**
 * Boot equivalence, at the end of a run: the node restarted now, from a copy of its disk,
 * renders what the running node renders: the same records, journal, USN, watermarks,
 * effective view and /LostAndFound listing (the invocation aside: every boot re-mints it).
 * Whatever the running node derives and keeps in memory (repair suspects, caches, indexes
 * maintained write by write) must agree with what a boot derives from the records alone; a
 * repair suspect the running node never filed once hid a cycle breaker from its listing
 * (scenarios/regressions/cycle-closed-by-arriving-record.scn). And whatever it shows must be
 * on disk. The copy leaves the node's disk as it was.
 */
export function bootViolations(simId: string, node: DirectoryNode, disk: SimFs): string[] {
  const copy = new SimFs();
  copy.restore(disk.image());
  const booted = DirectoryNode.boot(new Prng(`boot-oracle ${simId}`), KvStore.open(copy).entries);
  if (booted === null) return [`${simId}: its disk boots no node`];
  const out: string[] = [];
  const differs = (what: string, live: string, again: string): void => {
    if (live !== again) out.push(`${simId}: a restart from its disk changes ${what}`);
  };
  // A record version is named by its local USN (each write allocates one): same ids and
  // versions, without encoding every record twice.
  const records = (n: DirectoryNode): string => [...n.dir.store.all()].map((r) => `${r.id}@${r.usnChanged}`).sort().join(",");
  differs("the records", records(node), records(booted));
  differs("the journal", JSON.stringify(node.journal()), JSON.stringify(booted.journal()));
  differs("the USN", String(node.dir.usn), String(booted.dir.usn));
  differs("the watermarks", JSON.stringify(node.replication.watermarks), JSON.stringify(booted.replication.watermarks));
  differs("the effective view", viewDigest(node), viewDigest(booted));
  differs("/LostAndFound's listing", lostAndFoundListing(node), lostAndFoundListing(booted));
  return out;
}
