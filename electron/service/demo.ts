// The demo account a newcomer sees on first run (no --seed): two projects with people, and a
// modest amount of generated content (lists with items, posts with comments, categories,
// milestones, time entries over the last weeks).

import type { Store } from '../store/types.ts';
import { importSeed } from './account.ts';
import { generateDataset, type DatasetSizes } from './dataset.ts';

export const DEMO_ACCOUNT = {
  format: 'bivouac-seed/1',
  account: { name: 'Bivouac Demo' },
  companies: [
    { key: 'firm', firm: true, name: 'Summit Firm Ltd', city: 'Chamonix', country: 'France', 'time-zone-id': 'Europe/Paris' },
    { key: 'client', name: 'Valley Client Co', city: 'Grenoble', country: 'France' },
  ],
  people: [
    { key: 'you', company: 'firm', 'first-name': 'Alex', 'last-name': 'Guide', 'email-address': 'alex@summit.example', 'user-name': 'alex', password: 'bivouac', administrator: true, title: 'Lead guide' },
    { key: 'sam', company: 'firm', 'first-name': 'Sam', 'last-name': 'Rope', 'email-address': 'sam@summit.example', 'user-name': 'sam', password: 'bivouac', title: 'Surveyor' },
    { key: 'cleo', company: 'client', 'first-name': 'Cleo', 'last-name': 'Client', 'email-address': 'cleo@valley.example', 'user-name': 'cleo', password: 'bivouac', title: 'Product owner' },
  ],
  projects: [
    { key: 'north', name: 'North Face Route', company: 'client', members: ['you', 'sam', 'cleo'] },
    { key: 'base', name: 'Base Camp Logistics', members: ['you', 'sam'] },
  ],
};

/** Small enough to be created in well under a second. */
export const DEMO_CONTENT: DatasetSizes = {
  projects: 0, categoriesPerProject: 3, milestonesPerProject: 3, posts: 8, comments: 24,
  todoLists: 6, todoItems: 42, timeEntries: 80, days: 42, privateShare: 0.1, seed: 2024,
};

/** The demo account and its content, when the store is still empty; true when it was created. */
export async function seedDemo(store: Store): Promise<boolean> {
  if (!(await importSeed(store, DEMO_ACCOUNT, { ifEmpty: true }))) return false;
  await generateDataset(store, DEMO_CONTENT);
  return true;
}
