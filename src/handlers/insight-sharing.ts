import { fail } from "../core/errors.ts";
import { writableFields } from "../http/writable-fields.ts";
import { newAccessToken, type SharingInput } from "../store/sharing-repo.ts";
import type { SharingConfigurationRecord } from "../store/schema.ts";
import { findInsight } from "./insights.ts";
import { reply, type Handler } from "./types.ts";

/** The real serializer's fields (PostHog `posthog/api/sharing.py`, SharingConfigurationSerializer). */
const toSharingJson = (s: Pick<SharingConfigurationRecord, "enabled" | "access_token" | "settings"> & { created_at: string | null }) => ({
  created_at: s.created_at,
  enabled: s.enabled,
  access_token: s.access_token,
  settings: s.settings,
  password_required: false,
  share_passwords: [],
});

/** Nothing stored yet: an unsaved configuration with a new token, as the real service answers (it stores one at the first write). */
const unsaved = () => toSharingJson({ created_at: null, enabled: false, access_token: newAccessToken(), settings: null });

const SHARING_WRITABLE = ["enabled", "settings", "password_required"] as const;

export const insightSharingHandlers = {
  insights_sharing_list: (args) => {
    const insight = findInsight(args);
    const stored = args.deps.store.sharing.forInsight(args.project.id, insight.id);
    return reply(200, stored ? toSharingJson(stored) : unsaved());
  },

  insights_sharing_partial_update: async (args) => {
    const insight = findInsight(args);
    const input = writableFields<SharingInput & { password_required?: boolean }>(args.c.request.requestBody, SHARING_WRITABLE);
    // The real service's answer for an organization without the paid feature, which no organization here has.
    if (input.password_required) throw fail.forbidden("Sharing with password requires the Advanced Permissions feature");
    const { password_required: _ignored, ...fields } = input;
    return reply(200, toSharingJson(await args.deps.store.sharing.write(args.project.id, insight.id, fields, args.caller.user.id)));
  },

  /** Reference: `SharingConfiguration.rotate_access_token`; the links with the old token stop working. */
  insights_sharing_refresh_create: async (args) => {
    const insight = findInsight(args);
    const written = await args.deps.store.sharing.write(args.project.id, insight.id, { access_token: newAccessToken() }, args.caller.user.id);
    return reply(200, toSharingJson(written));
  },
} satisfies Record<string, Handler>;
