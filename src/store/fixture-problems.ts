/** One bad value of a fixture document: its JSON pointer and what is wrong with it. */
export interface FixtureProblem {
  pointer: string;
  reason: string;
}

const describe = (p: FixtureProblem) => `${p.pointer || "/"}: ${p.reason}`;

/**
 * A fixture document that cannot be loaded, with every bad value found (a fix-and-restart loop per value was the
 * newcomer's complaint in issue 41). `pointer` and `reason` are the first problem's, for callers that name one field.
 */
export class FixtureError extends Error {
  override name = "FixtureError";
  readonly problems: readonly FixtureProblem[];

  constructor(problems: readonly FixtureProblem[]) {
    super(problems.length === 1 ? describe(problems[0]!) : `${problems.length} problems: ${problems.map(describe).join("; ")}`);
    this.problems = problems;
  }

  get pointer(): string {
    return this.problems[0]!.pointer;
  }

  get reason(): string {
    return this.problems[0]!.reason;
  }
}

/** Gathers problems while a document is read; `done()` throws them all at once, if any. */
export class ProblemList {
  private readonly list: FixtureProblem[] = [];

  add(pointer: string, reason: string): void {
    this.list.push({ pointer, reason });
  }

  done(): void {
    if (this.list.length > 0) throw new FixtureError(this.list);
  }
}
