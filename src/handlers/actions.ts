import { countActionEvents } from "../analyses/actions/count.ts";
import { compileActionStep, stepConditions } from "../analyses/shared/action-match.ts";
import { fail } from "../core/errors.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { writableFields } from "../http/writable-fields.ts";
import { ACTION_WRITABLE, type ActionInput } from "../store/actions-repo.ts";
import type { ActionRecord } from "../store/schema.ts";
import { normalizeStep, toActionJson } from "./action-json.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
const queryOf = (args: HandlerArgs) => args.c.request.query as Q;

/** The action of the path, not deleted (or deleted too, for the write that restores it); else 404. */
function findAction(args: HandlerArgs, opts: { includeDeleted?: boolean } = {}): ActionRecord {
  const id = Number((args.c.request.params as Q).id);
  const action = args.deps.store.actions.get(args.project.id, id, opts);
  if (!action) throw fail.notFound();
  return action;
}

const filterContext = (args: HandlerArgs) => ({
  cohorts: args.deps.store.analysisData.cohorts(args.project.id),
  now: args.deps.clock.now(),
  timezone: args.project.timezone,
});

/**
 * The sent fields, checked as the real service checks them (a live action of the project with the same name is
 * a 400 on `name`), plus what the mock refuses rather than matching nothing or everything: a step without a
 * condition, and a pattern RE2 cannot compile (a 400 naming the step's field). Steps are stored normalized.
 */
function validInput(args: HandlerArgs, current?: ActionRecord): ActionInput {
  const input = writableFields<ActionInput>(args.c.request.requestBody, ACTION_WRITABLE);
  if (input.name !== undefined) {
    const clash = args.deps.store.actions.list(args.project.id).find((a) => a.name === input.name && a.id !== current?.id);
    if (clash) throw fail.invalid("name", `This project already has an action with this name, ID ${clash.id}`, "unique");
  }
  if (input.steps !== undefined) {
    input.steps = input.steps.map(normalizeStep);
    const ctx = filterContext(args);
    input.steps.forEach((step, i) => {
      if (stepConditions(step).length === 0) throw fail.invalid(`steps__${i}`, "A step needs at least one condition: event, url, selector, tag_name, text, href or properties.");
      compileActionStep(step, ctx, `steps__${i}`);
    });
  }
  return input;
}

/** The real service's order: most recently calculated first, then by name. */
const byListOrder = (a: ActionRecord, b: ActionRecord) =>
  (b.last_calculated_at ?? "").localeCompare(a.last_calculated_at ?? "") || a.name.localeCompare(b.name) || a.id - b.id;

function searchMatcher(q: Q): (a: ActionRecord) => boolean {
  if (typeof q.search !== "string" || q.search === "") return () => true;
  const needle = q.search.toLowerCase();
  return (a) => a.name.toLowerCase().includes(needle) || (a.description ?? "").toLowerCase().includes(needle);
}

async function update(args: HandlerArgs) {
  const action = findAction(args, { includeDeleted: true });
  if (action.deleted && (args.c.request.requestBody as Q).deleted !== false) throw fail.notFound();
  const input = validInput(args, action);
  const updated = await args.deps.store.actions.update(action, input, args.caller.user.id);
  return reply(200, toActionJson(updated, args.deps.store));
}

export const actionHandlers = {
  actions_list: (args) => {
    const q = queryOf(args);
    const matches = args.deps.store.actions.list(args.project.id).filter(searchMatcher(q)).sort(byListOrder);
    const page = listPage(args, matches);
    return reply(200, { ...page, results: page.results.map((a) => toActionJson(a, args.deps.store)) });
  },

  actions_create: async (args) => {
    const input = validInput(args) as ActionInput & { name: string };
    const action = await args.deps.store.actions.create(args.project.id, input, args.caller.user.id);
    return reply(201, toActionJson(action, args.deps.store));
  },

  actions_retrieve: (args) => reply(200, toActionJson(findAction(args), args.deps.store)),

  /** PATCH: the sent writable fields; `deleted: false` is the one write that reaches a soft-deleted action. */
  actions_partial_update: update,

  /** PUT: as PATCH with `name` required (the document requires it); fields left out keep their values. */
  actions_update: update,

  /** Hard deletes are refused with a bodiless 405, as the real service does (use PATCH deleted=true). */
  actions_destroy: (args) => {
    findAction(args);
    return reply(405);
  },

  actions_count_retrieve: (args) => {
    const action = findAction(args);
    const index = args.deps.store.analysisData.index(args.project.id);
    const ctx = { ...filterContext(args), personOf: (id: string) => index.personsByDistinctId.get(id) };
    return reply(200, { count: countActionEvents(args.deps.store.analysisData.events(args.project.id), action, ctx) });
  },
} satisfies Record<string, Handler>;
