// Intents of the team's administration (D336, issue #27): people, companies, projects and members changed on a
// replica, replayed on a team server through its administration routes (docs/api-extensions.md). A plain
// server has no such routes: a replica of one refuses these actions at once, so none is ever queued for it. Pure.

import type { IntentPlanner } from './types.ts';

/** Each administration intent's arguments (local ids). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the first intents fill it (remove this line then)
export interface AdminIntents {
  // filled by the administration intents change
}

export const ADMIN_PLANNERS: { readonly [N in keyof AdminIntents]: IntentPlanner<AdminIntents[N]> } = {};
