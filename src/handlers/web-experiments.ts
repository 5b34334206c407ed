/**
 * The web experiments API (reference: posthog/api/web_experiment.py): each experiment owns a multivariate flag,
 * made inactive with it, whose variants follow the experiment's.
 */
import { fail } from "../core/errors.ts";
import { webExperimentFlagKey, webExperimentFlagVariants } from "../store/early-access-rules.ts";
import type { Properties, WebExperimentRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
type Variants = Record<string, Properties>;

/** The experiment as the real serializer (and posthog-js) reads it. */
export function toWebExperimentJson(experiment: WebExperimentRecord, store: Store) {
  const flag = store.flags.get(experiment.project_id, experiment.feature_flag_id, { includeDeleted: true });
  return { id: experiment.id, name: experiment.name, created_at: experiment.created_at, feature_flag_key: flag?.key ?? "", variants: experiment.variants };
}

/** The real serializer's checks: a control variant, and a selector on every transform of the other variants. */
function requireValidVariants(variants: Variants): void {
  for (const [name, variant] of Object.entries(variants)) {
    if (name === "control") continue;
    const transforms = Array.isArray(variant.transforms) ? (variant.transforms as Properties[]) : [];
    transforms.forEach((transform, index) => {
      if (typeof transform.selector !== "string") {
        throw fail.invalid(`variants__${name}__transforms__${index}__selector`, `Experiment transform [$${index}] variant '${name}' does not have a valid selector`);
      }
    });
  }
}

function findExperiment(args: HandlerArgs): WebExperimentRecord {
  const experiment = args.deps.store.webExperiments.get(args.project.id, Number((args.c.request.params as Q).id));
  if (!experiment) throw fail.notFound();
  return experiment;
}

export const webExperimentHandlers = {
  web_experiments_list: (args) => {
    const page = listPage(args, args.deps.store.webExperiments.list(args.project.id));
    return reply(200, { ...page, results: page.results.map((e) => toWebExperimentJson(e, args.deps.store)) });
  },

  web_experiments_create: async (args) => {
    const body = args.c.request.requestBody as { name: string; variants: Variants };
    requireValidVariants(body.variants);
    const { store } = args.deps;
    const userId = args.caller.user.id;
    const filters = { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: webExperimentFlagVariants(body.variants) };
    const flag = await store.flags.create(args.project.id, { key: webExperimentFlagKey(body.name), name: `Feature Flag for Experiment ${body.name}`, filters, active: false }, userId);
    const experiment = await store.webExperiments.create({ project_id: args.project.id, name: body.name, feature_flag_id: flag.id, variants: body.variants, created_by: userId });
    return reply(201, toWebExperimentJson(experiment, store));
  },

  web_experiments_retrieve: (args) => reply(200, toWebExperimentJson(findExperiment(args), args.deps.store)),

  web_experiments_partial_update: async (args) => {
    const experiment = findExperiment(args);
    const body = args.c.request.requestBody as { name?: string; variants?: Variants };
    const { store } = args.deps;
    if (body.variants !== undefined) {
      requireValidVariants(body.variants);
      const flag = store.flags.get(args.project.id, experiment.feature_flag_id);
      // As the real update: the flag keeps its condition sets and gets the new variants (its other filters are dropped there too).
      if (flag) await store.flags.update(flag, { filters: { groups: flag.filters.groups ?? null, multivariate: webExperimentFlagVariants(body.variants) } }, args.caller.user.id);
    }
    const changes = { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.variants !== undefined ? { variants: body.variants } : {}) };
    return reply(200, toWebExperimentJson(await store.webExperiments.update(experiment, changes), store));
  },

  web_experiments_destroy: async (args) => {
    await args.deps.store.webExperiments.remove(findExperiment(args));
    return reply(204);
  },
} satisfies Record<string, Handler>;
