/**
 * Project settings the real web app writes (PATCH of a project or environment) and the person property keys it
 * reads, on basic.json. Project 1's pageviews, worked by hand: 03-01 08:00, 11:00, 15:00, 03-02 09:00 and
 * 03-03 23:30 UTC; its persons' properties: {email, plan}, {email, plan}, {email}.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const dailyPageviews = async () =>
  (await s.get(`/api/projects/1/insights/trend/?${qs({ events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-04" })}`)).body.result[0].data;

describe("updating a project", () => {
  it("changes its settings, kept on later reads and under its environment path", async () => {
    const res = await s.patch("/api/environments/1/", { name: "Web (production)", week_start_day: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, name: "Web (production)", week_start_day: 1, timezone: "UTC" });
    expect((await s.get("/api/projects/1/")).body).toEqual(res.body);
  });

  it("re-buckets analyses in a new time zone, not serving results cached under the old one", async () => {
    expect(await dailyPageviews()).toEqual([3, 1, 1, 0]);
    await s.patch("/api/projects/1/", { timezone: "Asia/Tokyo" });
    // UTC+9: 15:00 moves to 03-02 00:00, and 03-03 23:30 to 03-04 08:30.
    expect(await dailyPageviews()).toEqual([2, 2, 0, 1]);
  });

  it("refuses what it does not model, naming the field, and writes nothing", async () => {
    const unknownZone = await s.patch("/api/projects/1/", { name: "Kept?", timezone: "Mars/Olympus" });
    expect(unknownZone.status).toBe(400);
    expect(unknownZone.body.attr).toBe("timezone");
    const otherSetting = await s.patch("/api/projects/1/", { data_attributes: ["data-attr"] });
    expect(otherSetting.status).toBe(400);
    expect(otherSetting.body.attr).toBe("data_attributes");
    expect((await s.patch("/api/projects/1/", {})).status).toBe(400);
    expect((await s.get("/api/projects/1/")).body.name).toBe("Web");
  });

  it("is for members only", async () => {
    expect((await s.patch("/api/projects/1/", { name: "Taken" }, { key: OTHER_KEY })).status).toBe(403);
  });
});

describe("person property keys", () => {
  it("counts the persons having each key, most frequent first", async () => {
    expect((await s.get("/api/projects/1/persons/properties/")).body).toEqual([
      { name: "email", count: 3 },
      { name: "plan", count: 2 },
    ]);
    expect((await s.get("/api/environments/2/persons/properties/", { key: OTHER_KEY })).body).toEqual([{ name: "plan", count: 1 }]);
  });
});
