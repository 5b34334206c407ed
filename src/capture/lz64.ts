/**
 * LZ-String's base64 format (`compression=lz64`, what posthog-js sent before gzip), decoded with an output cap.
 * lz-string's own `decompressFromBase64` (pieroxy/lz-string 1.5.0, `libs/lz-string.js` `_decompress`) has no
 * cap: its dictionary entries grow by one character per code, so a body of a few kilobytes can expand
 * quadratically to gigabytes before any size check runs. This is the same algorithm, stopping as soon as the
 * output would pass `maxChars`. Each dictionary entry is a run of the output already written (an entry is the
 * previous entry plus one character, where it was emitted), so entries are (start, length) pairs over one
 * UTF-16 buffer: no string per entry, and work bounded by the input's bits plus the capped output.
 */

export type Lz64Result = { ok: true; text: string } | { ok: false; reason: "invalid" | "too_large" };

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
/** Each character's 6-bit value; -1 (read as 0, as lz-string reads an unknown character) for the rest. */
const VALUE = Int8Array.from({ length: 128 }, (_, c) => ALPHABET.indexOf(String.fromCharCode(c)));

/** The bits of a base64 text, six per character, high bit first. */
class BitReader {
  /** lz-string's `data.index`: the next character to load (reading past the end reads zeros). */
  index = 1;
  #value: number;
  #mask = 32;

  constructor(private readonly text: string) {
    this.#value = this.#load(0);
  }

  /** `count` bits, the first read being the lowest (lz-string's bit order). */
  read(count: number): number {
    let out = 0;
    for (let k = 0, power = 1; k < count; k++, power *= 2) {
      if (this.#value & this.#mask) out += power;
      this.#mask >>= 1;
      if (this.#mask === 0) {
        this.#mask = 32;
        this.#value = this.#load(this.index++);
      }
    }
    return out;
  }

  #load(i: number): number {
    const c = this.text.charCodeAt(i);
    return c < 128 ? Math.max(VALUE[c]!, 0) : 0;
  }
}

/** The output written so far, and the dictionary as runs of it. */
class Output {
  chars = new Uint16Array(1024);
  length = 0;
  starts = new Int32Array(1024);
  lengths = new Int32Array(1024);
  /** Codes 0–2 are the format's commands; entries start at 3. */
  size = 3;

  constructor(readonly maxChars: number) {}

  /** Room for `more` characters; false when they would pass the cap. */
  reserve(more: number): boolean {
    const need = this.length + more;
    if (need > this.maxChars) return false;
    if (need > this.chars.length) this.chars = grown(this.chars, Math.min(Math.max(need, this.chars.length * 2), this.maxChars));
    return true;
  }

  addEntry(start: number, length: number): void {
    if (this.size === this.starts.length) {
      this.starts = grown(this.starts, this.size * 2);
      this.lengths = grown(this.lengths, this.size * 2);
    }
    this.starts[this.size] = start;
    this.lengths[this.size] = length;
    this.size++;
  }

  /** A literal character as the next entry, placed where the next output goes (emitting it then copies nothing). */
  literal(code: number): void {
    this.addEntry(this.length, 1);
    this.chars[this.length] = code;
  }

  text(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.length; i += 8192) parts.push(String.fromCharCode(...this.chars.subarray(i, Math.min(i + 8192, this.length))));
    return parts.join("");
  }
}

function grown<T extends Uint16Array | Int32Array>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}

/** `compression=lz64` text to its string, or why not: not LZ-String base64, or more than `maxChars` characters. */
export function decompressLz64(input: string, maxChars: number): Lz64Result {
  const invalid = { ok: false, reason: "invalid" } as const;
  const tooLarge = { ok: false, reason: "too_large" } as const;
  if (input === "") return invalid;
  const bits = new BitReader(input);
  const out = new Output(maxChars);
  const first = bits.read(2);
  if (first === 2) return { ok: true, text: "" };
  // lz-string reads on with an undefined first entry (its output then holds the text "undefined"): refused.
  if (first === 3) return invalid;
  if (!out.reserve(1)) return tooLarge;
  out.literal(bits.read(first === 0 ? 8 : 16));
  out.length = 1;
  let numBits = 3;
  let enlargeIn = 4;
  let wStart = 0;
  let wLength = 1;
  for (;;) {
    // Input ended before the end-of-stream code: lz-string answers "", which is no payload either.
    if (bits.index > input.length) return invalid;
    let code = bits.read(numBits);
    if (code === 2) return { ok: true, text: out.text() };
    if (code === 0 || code === 1) {
      if (!out.reserve(1)) return tooLarge;
      out.literal(bits.read(code === 0 ? 8 : 16));
      code = out.size - 1;
      if (--enlargeIn === 0) enlargeIn = 2 ** numBits++;
    }
    const at = out.length;
    let length: number;
    if (code < out.size) {
      length = out.lengths[code]!;
      if (!out.reserve(length)) return tooLarge;
      const start = out.starts[code]!;
      // A literal just read is already in place (its entry starts here).
      if (start !== at) out.chars.copyWithin(at, start, start + length);
    } else if (code === out.size) {
      // The entry being defined by this very code: the previous one plus its own first character.
      length = wLength + 1;
      if (!out.reserve(length)) return tooLarge;
      out.chars.copyWithin(at, wStart, wStart + wLength);
      out.chars[at + wLength] = out.chars[wStart]!;
    } else {
      return invalid;
    }
    out.length = at + length;
    // The new entry is the previous one plus this one's first character: where they were written, contiguous.
    out.addEntry(wStart, wLength + 1);
    wStart = at;
    wLength = length;
    if (--enlargeIn === 0) enlargeIn = 2 ** numBits++;
  }
}
