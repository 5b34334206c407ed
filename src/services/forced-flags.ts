/**
 * Flag values forced by tests through the control API (`/_mock/feature_flags/…`): for one distinct id, one
 * group, or everyone; cleared by reset. A forced value wins over evaluation, the narrowest scope first.
 */

/** What a test asks: `value` true/false, or a variant key. */
export interface ForcedFlagRequest {
  key: string;
  value: boolean | string;
  /** Served instead of the flag's own payload; absent = the flag's payload for the forced value. */
  payload?: unknown;
  /** Only in this project (default: every project). */
  project_id?: string;
  /** Only for this distinct id. */
  distinct_id?: string;
  /** Only for this group (`{"company": "acme"}` style: one type and key). */
  group?: { type: string; key: string };
}

export interface ForcedFlag extends ForcedFlagRequest {
  id: number;
}

/** Who is evaluated: the scopes a forced value may name. */
export interface ForcedFlagSubject {
  projectId: string;
  distinctId: string;
  groups: Record<string, string>;
}

/** Bounded like the other control lists: a test that forgets to clean up cannot grow memory without end. */
export const MAX_FORCED_FLAGS = 1000;

const specificity = (f: ForcedFlag) => (f.distinct_id !== undefined ? 2 : f.group !== undefined ? 1 : 0);

export class ForcedFlags {
  #entries: ForcedFlag[] = [];
  #nextId = 1;

  add(request: ForcedFlagRequest): ForcedFlag {
    // A new value for the same flag and scope replaces the old one.
    this.#entries = this.#entries.filter((f) => !sameScope(f, request));
    if (this.#entries.length >= MAX_FORCED_FLAGS) this.#entries.shift();
    const forced = { id: this.#nextId++, ...request };
    this.#entries.push(forced);
    return forced;
  }

  list(): ForcedFlag[] {
    return [...this.#entries];
  }

  remove(id: number): boolean {
    const before = this.#entries.length;
    this.#entries = this.#entries.filter((f) => f.id !== id);
    return this.#entries.length < before;
  }

  clear(): void {
    this.#entries = [];
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The forced values that apply to a subject, one per flag key: the narrowest scope, then the newest. */
  forSubject(subject: ForcedFlagSubject): Map<string, ForcedFlag> {
    const applying = this.#entries
      .filter((f) => appliesTo(f, subject))
      .sort((a, b) => specificity(a) - specificity(b) || a.id - b.id);
    return new Map(applying.map((f) => [f.key, f]));
  }

  /** The forced values of a project (any scope), for rewriting local evaluation definitions. */
  forProject(projectId: string): ForcedFlag[] {
    return this.#entries.filter((f) => f.project_id === undefined || f.project_id === projectId);
  }
}

function sameScope(a: ForcedFlagRequest, b: ForcedFlagRequest): boolean {
  return a.key === b.key && a.project_id === b.project_id && a.distinct_id === b.distinct_id && a.group?.type === b.group?.type && a.group?.key === b.group?.key;
}

function appliesTo(f: ForcedFlag, s: ForcedFlagSubject): boolean {
  if (f.project_id !== undefined && f.project_id !== s.projectId) return false;
  if (f.distinct_id !== undefined && f.distinct_id !== s.distinctId) return false;
  if (f.group !== undefined && s.groups[f.group.type] !== f.group.key) return false;
  return true;
}
