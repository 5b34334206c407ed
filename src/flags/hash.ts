import { hash } from "node:crypto";

/** 15 hex digits, the largest value the hash prefix can take (reference: flags service `calculate_hash`). */
const LONG_SCALE = 0xfffffffffffffff;

/**
 * The flags service's bucket for an identifier: sha1 of `${flagKey}.${hashKey}${salt}`, first 15 hex digits
 * over 0xFFFFFFFFFFFFFFF, so a uniform number in [0, 1]. Salt "" buckets rollout, "variant" buckets variants.
 * An empty identifier buckets at 0, as the service does when it has nothing to hash.
 */
export function flagHash(flagKey: string, hashKey: string, salt: "" | "variant"): number {
  if (hashKey === "") return 0;
  // One-shot hashing: a Hash object per call cost more than the digest itself.
  const hex = hash("sha1", `${flagKey}.${hashKey}${salt}`, "hex");
  return parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
}
