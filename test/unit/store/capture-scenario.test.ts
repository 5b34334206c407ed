import { describe, expect, it } from "vitest";
import { createClock } from "../../../src/core/clock.ts";
import { assertFixtureDocument, stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import { createStore } from "../../../src/store/store.ts";
import { scenario } from "../../support/server.ts";

describe("the capture scenario (fixtures/scenarios/capture.json)", () => {
  it("loads each project's explicit api_token, so client libraries can be pointed at it", async () => {
    const doc = scenario("capture");
    assertFixtureDocument(doc);
    const clock = createClock(Date.parse(doc.now!));
    const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
    expect(store.projects.byToken("phc_test_capture_token_0001")?.id).toBe("1");
    expect(store.projects.byToken("phc_test_capture_token_0002")?.id).toBe("2");
    expect(store.projects.byToken("phc_not_a_token")).toBeUndefined();
  });
});
