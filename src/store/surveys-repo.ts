import type { StoreCore } from "./core.ts";
import type { SurveyRecord } from "./schema.ts";
import { saved, surveysOptIn } from "./survey-record.ts";

/** Surveys; kept in the main store file. Every write applies the model's save rules and the opt-in signal. */
export function createSurveysRepo(core: StoreCore) {
  const { meta, dbs, nowIso } = core;
  const all = (): SurveyRecord[] => (meta().surveys ??= []);
  /** The real `update_surveys_opt_in` signal, run after every write of a survey. */
  const followOptIn = (projectId: string) => {
    const project = meta().projects.find((p) => p.id === projectId);
    if (project) project.surveys_opt_in = surveysOptIn(projectId, all());
  };

  return {
    /**
     * A project's surveys, newest first. Surveys made in the same millisecond (a frozen clock) keep their order of
     * creation, reversed: their UUIDv7 ids share the timestamp and differ only in random bits.
     */
    list: (projectId: string): SurveyRecord[] =>
      (meta().surveys ?? [])
        .filter((s) => s.project_id === projectId)
        .reverse()
        .sort((a, b) => b.created_at.localeCompare(a.created_at)),
    get: (projectId: string, id: string): SurveyRecord | undefined => (meta().surveys ?? []).find((s) => s.id === id && s.project_id === projectId),
    /** A survey of any project (the control API names surveys by id alone). */
    byId: (id: string): SurveyRecord | undefined => (meta().surveys ?? []).find((s) => s.id === id),

    async create(survey: SurveyRecord): Promise<SurveyRecord> {
      const record = saved(survey);
      all().push(record);
      followOptIn(record.project_id);
      await dbs.meta.write();
      return record;
    },

    /** Replaces the survey with its changed copy (built and checked whole by the caller). */
    async update(survey: SurveyRecord, changes: Partial<SurveyRecord>): Promise<SurveyRecord> {
      const record = saved({ ...survey, ...changes, id: survey.id, project_id: survey.project_id, updated_at: nowIso() });
      meta().surveys = all().map((s) => (s === survey ? record : s));
      followOptIn(record.project_id);
      await dbs.meta.write();
      return record;
    },

    async remove(survey: SurveyRecord): Promise<void> {
      meta().surveys = all().filter((s) => s !== survey);
      followOptIn(survey.project_id);
      await dbs.meta.write();
    },
  };
}

export type SurveysRepo = ReturnType<typeof createSurveysRepo>;
