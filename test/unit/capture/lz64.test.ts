import fc from "fast-check";
import LZString from "lz-string";
import { describe, expect, it } from "vitest";
import { decodeCapture } from "../../../src/capture/decode.ts";
import { decompressLz64 } from "../../../src/capture/lz64.ts";
import { statusOf } from "../../support/api-status.ts";
import { ALPHABET, bombLength, lzBomb } from "../../support/lz-bomb.ts";


describe("lz64 decoding with an output cap", () => {
  it("gives back what lz-string compressed: any UTF-16 text, empty, long repeated", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.string({ unit: fc.constantFrom("a", "b", "é", "😀"), maxLength: 3000 }));
    fc.assert(
      fc.property(text, (s) => {
        expect(decompressLz64(LZString.compressToBase64(s), 1e6)).toEqual({ ok: true, text: s });
      }),
    );
    for (const s of ["", "x", '{"event":"e"}'.repeat(20_000), "\ud800 lone surrogates \udfff"]) {
      expect(decompressLz64(LZString.compressToBase64(s), 1e6)).toEqual({ ok: true, text: s });
    }
  });

  it("reads arbitrary base64 text as lz-string does (a first code of 3, garbage to lz-string, is refused)", () => {
    const base64 = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 1, maxLength: 80 });
    fc.assert(
      fc.property(base64, (text) => {
        const mine = decompressLz64(text, 1e6);
        if ((ALPHABET.indexOf(text[0]!) & 48) === 48) expect(mine).toEqual({ ok: false, reason: "invalid" });
        else expect(mine.ok ? mine.text || null : null).toBe(LZString.decompressFromBase64(text) || null);
      }),
      { numRuns: 2000 },
    );
  });

  it("stops at the cap: exactly the cap decodes, one character less does not", () => {
    const text = LZString.compressToBase64("x".repeat(1000));
    expect(decompressLz64(text, 1000)).toEqual({ ok: true, text: "x".repeat(1000) });
    expect(decompressLz64(text, 999)).toEqual({ ok: false, reason: "too_large" });
    expect(decompressLz64(lzBomb(50), bombLength(50))).toEqual({ ok: true, text: "a".repeat(bombLength(50)) });
    expect(LZString.decompressFromBase64(lzBomb(50))).toBe("a".repeat(bombLength(50)));
  });

  it("a bomb: 40,000 codes in ~100 KB that expand to 800 M characters (past V8's longest string) answer 413", () => {
    const bomb = lzBomb(40_000);
    expect(bomb.length).toBeLessThan(110_000);
    expect(bombLength(40_000)).toBeGreaterThan(8e8);
    expect(decompressLz64(bomb, 1024 * 1024)).toEqual({ ok: false, reason: "too_large" });
    const form = { body: Buffer.from(`data=${encodeURIComponent(bomb)}&compression=lz64`), contentType: "application/x-www-form-urlencoded", contentEncoding: undefined, query: {} };
    expect(statusOf(() => decodeCapture(form, 1024 * 1024))).toBe("413 payload_too_large");
    const body = { body: Buffer.from(bomb), contentType: "text/plain", contentEncoding: undefined, query: { compression: "lz64" } };
    expect(statusOf(() => decodeCapture(body, 1024 * 1024))).toBe("413 payload_too_large");
  });

  it("a payload under the cap in characters but over it in UTF-8 bytes answers 413 too", () => {
    const json = JSON.stringify({ event: "e", distinct_id: "d", properties: { text: "é".repeat(600) } });
    const body = { body: Buffer.from(LZString.compressToBase64(json)), contentType: "text/plain", contentEncoding: undefined, query: { compression: "lz64" } };
    expect(json.length).toBeLessThan(1000);
    expect(statusOf(() => decodeCapture(body, 1000))).toBe("413 payload_too_large");
    expect(decodeCapture(body, 2000)).toEqual(JSON.parse(json));
  });
});
