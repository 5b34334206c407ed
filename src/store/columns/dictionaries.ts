/**
 * The dictionaries of a store's event columns: every string (event names, distinct ids, element chains, property
 * keys, uuids that are not canonical), every property value and every shape (an event's key list) is stored once
 * and referred to by its id. All are append-only, so tables that share them never see an id change.
 */
import { canonicalUuidWords, marksOddUuid, ODD_UUID, type UuidWords } from "./uuid-words.ts";

/** A string dictionary: id ↔ value, append-only (tables sharing one never see each other's ids change). */
class Dictionary<T> {
  readonly values: T[] = [];
  readonly #ids = new Map<T, number>();
  constructor(initial: readonly T[] = []) {
    for (const v of initial) this.id(v);
  }
  id(value: T): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }
  find(value: T): number | undefined {
    return this.#ids.get(value);
  }
}

/** Property values by id: strings and numbers by value, objects and lists by their JSON (frozen, shared). */
class ValueDictionary {
  readonly values: unknown[] = [false, true, null];
  readonly #strings = new Map<string, number>();
  readonly #numbers = new Map<number, number>();
  readonly #json = new Map<string, number>();

  /** Adds a value at the next id (restoring a snapshot: the lists hold each value once). */
  append(value: unknown): void {
    const before = this.values.length;
    if (this.id(value) !== before) throw new Error("column snapshot: a dictionary value is listed twice");
  }

  id(value: unknown): number {
    switch (typeof value) {
      case "boolean":
        return value ? 1 : 0;
      case "string":
        return this.#intern(this.#strings, value, value);
      case "number":
        return this.#intern(this.#numbers, value, value);
      default:
        if (value === null) return 2;
        return this.#intern(this.#json, JSON.stringify(value), value, true);
    }
  }

  /** The id of a string value already stored, else undefined. */
  findString(value: string): number | undefined {
    return this.#strings.get(value);
  }

  /** `freeze`: an object or list, frozen when first stored (its one copy is shared by every event with it). */
  #intern<K>(map: Map<K, number>, key: K, value: unknown, freeze = false): number {
    let id = map.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(freeze ? deepFreeze(value) : value);
      map.set(key, id);
    }
    return id;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface ShapeNode {
  id: number;
  next: Map<number, ShapeNode>;
}

/** The dictionaries as plain lists (the column snapshot's header): ids are list positions. */
export interface DictionaryLists {
  names: string[];
  distinctIds: string[];
  chains: string[];
  keys: string[];
  /** From id 3 on (0–2 are false, true, null). */
  values: unknown[];
  shapes: number[][];
  oddUuids: string[];
}

/** What tables of one store share: every dictionary (append-only). */
export class EventDictionaries {
  readonly names = new Dictionary<string>();
  readonly distinctIds = new Dictionary<string>();
  readonly chains = new Dictionary<string>([""]);
  readonly keys = new Dictionary<string>();
  readonly values = new ValueDictionary();
  /** Each shape's key ids, in the order the event had them. */
  readonly shapes: Uint32Array[] = [];
  /** Shapes by key list, as a trie of key ids: no signature string built per event. */
  readonly #shapeTrie: ShapeNode = { id: -1, next: new Map() };
  /** Uuids kept as text (not canonical lower-case hex): the uuid column holds their id (src/store/columns/uuid-words.ts). */
  readonly oddUuids = new Dictionary<string>();
  /** Per key id, where the key sits in each shape's key list: rebuilt for a key once new shapes appear. */
  readonly #keyPositionsByKeyId = new Map<number, Int32Array>();

  toLists(): DictionaryLists {
    return {
      names: this.names.values,
      distinctIds: this.distinctIds.values,
      chains: this.chains.values,
      keys: this.keys.values,
      values: this.values.values.slice(3),
      shapes: this.shapes.map((s) => Array.from(s)),
      oddUuids: this.oddUuids.values,
    };
  }

  /** Dictionaries with these lists' ids (each list's position is its id). */
  static fromLists(lists: DictionaryLists): EventDictionaries {
    const dict = new EventDictionaries();
    const fill = (d: Dictionary<string>, values: readonly string[]) => {
      values.forEach((v, i) => (d.values.length === i ? d.id(v) : undefined));
      if (d.values.length !== values.length) throw new Error("column snapshot: a dictionary lists a value twice");
    };
    fill(dict.names, lists.names);
    fill(dict.distinctIds, lists.distinctIds);
    fill(dict.chains, lists.chains);
    fill(dict.keys, lists.keys);
    fill(dict.oddUuids, lists.oddUuids);
    for (const v of lists.values) dict.values.append(v);
    for (const s of lists.shapes) dict.shapeId(s);
    return dict;
  }

  shapeId(keyIds: readonly number[]): number {
    let node = this.#shapeTrie;
    for (const key of keyIds) {
      let child = node.next.get(key);
      if (!child) node.next.set(key, (child = { id: -1, next: new Map() }));
      node = child;
    }
    if (node.id === -1) {
      node.id = this.shapes.length;
      this.shapes.push(Uint32Array.from(keyIds));
    }
    return node.id;
  }

  /** The uuid column's words for a uuid: its bits, or the odd-uuid marker and its id here (added if new). */
  uuidWords(uuid: string): UuidWords {
    return this.#canonicalWords(uuid) ?? [ODD_UUID, ODD_UUID, ODD_UUID, this.oddUuids.id(uuid)];
  }

  /** The uuid column's words for a uuid, or null for odd text never stored (no row has it). */
  findUuidWords(uuid: string): UuidWords | null {
    const words = this.#canonicalWords(uuid);
    if (words !== null) return words;
    const id = this.oddUuids.find(uuid);
    return id === undefined ? null : [ODD_UUID, ODD_UUID, ODD_UUID, id];
  }

  /** A canonical uuid's words, unless they would read as the odd-uuid marker (such a uuid is kept as text). */
  #canonicalWords(uuid: string): UuidWords | null {
    const words = canonicalUuidWords(uuid);
    return words !== null && !marksOddUuid(words[0], words[1], words[2]) ? words : null;
  }

  /** Where a key sits in each shape's key list, -1 when absent; covers every shape stored now. */
  keyPositionsInShapes(keyId: number): Int32Array {
    let positions = this.#keyPositionsByKeyId.get(keyId);
    const shapes = this.shapes;
    if (!positions || positions.length < shapes.length) {
      positions = new Int32Array(shapes.length);
      for (let s = 0; s < shapes.length; s++) positions[s] = shapes[s]!.indexOf(keyId);
      this.#keyPositionsByKeyId.set(keyId, positions);
    }
    return positions;
  }
}
