// Intents of the project records (D336): what a person does to posts, comments, lists, to-dos, milestones,
// categories and time entries, by name, with its arguments, and the requests that replay each on any server
// of the interface. Pure.

import type { IntentPlanner } from './types.ts';

/** Each record intent's arguments (local ids). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the first intents fill it (remove this line then)
export interface RecordIntents {
  // filled by the record intents change
}

export const RECORD_PLANNERS: { readonly [N in keyof RecordIntents]: IntentPlanner<RecordIntents[N]> } = {};
