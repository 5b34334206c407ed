import { describe, expect, it } from "vitest";
import { createClock } from "../../../src/core/clock.ts";
import { projectPropertyTypes } from "../../../src/services/definitions.ts";
import { stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import type { EventRecord } from "../../../src/store/schema.ts";
import { createStore } from "../../../src/store/store.ts";
import { scenario } from "../../support/server.ts";

/** Property types as HogQL reads them: the kind most of a key's values had, kept current by capture's appends. */
describe("project property types", () => {
  const event = (n: number, properties: Record<string, unknown>): EventRecord => ({
    uuid: `0190bbbb-0000-7000-8000-${String(n).padStart(12, "0")}`, project_id: "1", event: "scored", distinct_id: "a", timestamp: Date.parse("2024-03-04T10:00:00Z") + n, properties, elements_chain: "",
  });

  it("types a key captured after the first read, and retypes it when most of its values change kind", async () => {
    const doc = scenario("basic");
    const clock = createClock(Date.parse(doc.now!));
    const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
    // basic.json: purchases carry amount 50 and 30; $browser is text.
    expect(projectPropertyTypes(store, "1").event).toMatchObject({ amount: "Numeric", $browser: "String" });
    expect(projectPropertyTypes(store, "1").event.score).toBeUndefined();
    await store.events.append("1", [event(1, { score: 7 })]);
    expect(projectPropertyTypes(store, "1").event.score).toBe("Numeric");
    // Three texts against one number: text wins.
    await store.events.append("1", [event(2, { score: "high" }), event(3, { score: "low" }), event(4, { score: "mid" })]);
    expect(projectPropertyTypes(store, "1").event.score).toBe("String");
    // A person property set later is typed at the next read too.
    const person = store.persons.list("1")[0]!;
    await store.persons.update(person, { ...person.properties, age: 41 }, person.is_identified);
    expect(projectPropertyTypes(store, "1").person.age).toBe("Numeric");
  });
});
