/** lz-string's base64 alphabet (`=` and anything else read as zero bits). */
export const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";

/**
 * An LZ-String base64 text written code by code (the format of lz-string's `_compress`): a literal "a", then
 * `repeats` codes each naming the entry it defines (previous entry + its first character), then the end code.
 * Entry lengths grow 2, 3, 4 …: the output is 1 + Σ(2 … repeats+1) characters, quadratic in the input.
 */
export function lzBomb(repeats: number): string {
  const chars: string[] = [];
  let value = 0;
  let filled = 0;
  const write = (code: number, bits: number) => {
    for (let k = 0; k < bits; k++, code >>>= 1) {
      value = (value << 1) | (code & 1);
      if (++filled === 6) {
        chars.push(ALPHABET[value]!);
        value = filled = 0;
      }
    }
  };
  write(0, 2);
  write("a".charCodeAt(0), 8);
  let numBits = 3;
  let enlargeIn = 4;
  let dictSize = 4;
  for (let i = 0; i < repeats; i++) {
    write(dictSize++, numBits);
    if (--enlargeIn === 0) enlargeIn = 2 ** numBits++;
  }
  write(2, numBits);
  write(0, 6 - filled);
  while (chars.length % 4) chars.push("=");
  return chars.join("");
}
/** Characters a bomb of `repeats` codes expands to. */
export const bombLength = (repeats: number) => 1 + (repeats * (repeats + 3)) / 2;
