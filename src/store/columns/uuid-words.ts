/**
 * A uuid in the uuid column: a canonical lower-case uuid (8-4-4-4-12 hex) as its 128 bits in four 32-bit words, read
 * back as text only for output. Any other text is kept in the odd-uuid dictionary and the column holds ODD_UUID
 * three times and that dictionary's id.
 */

export type UuidWords = [number, number, number, number];

/** The first three words of a uuid kept as text (a canonical uuid with these words is kept as text too). */
export const ODD_UUID = 0xffffffff;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** Value of a lower-case hex digit's char code, -1 for anything else. */
const NIBBLE = Int8Array.from({ length: 128 }, (_, c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1));

/** The four words of a canonical lower-case uuid (8-4-4-4-12), or null: one pass over the characters. */
export function canonicalUuidWords(uuid: string): UuidWords | null {
  if (uuid.length !== 36) return null;
  const words: UuidWords = [0, 0, 0, 0];
  let nibbles = 0;
  for (let i = 0; i < 36; i++) {
    const c = uuid.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return null;
      continue;
    }
    const v = c < 128 ? NIBBLE[c]! : -1;
    if (v < 0) return null;
    const w = nibbles >>> 3;
    words[w] = ((words[w]! << 4) | v) >>> 0;
    nibbles++;
  }
  return words;
}

/** Whether words that start with these three mark a uuid kept as text. */
export const marksOddUuid = (w0: number | undefined, w1: number | undefined, w2: number | undefined): boolean => w0 === ODD_UUID && w1 === ODD_UUID && w2 === ODD_UUID;

/** The canonical text of the uuid whose words start at `at` in `words`. */
export function uuidTextOfWords(words: Uint32Array, at: number): string {
  let s = "";
  for (let k = 0; k < 4; k++) {
    const x = words[at + k]!;
    s += HEX[x >>> 24]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
  }
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
