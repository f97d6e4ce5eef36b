// A realistic account, generated: projects, categories, milestones, posts, comments (on posts,
// milestones and todo items), todo lists, todo items (some completed, assigned, due) and time
// entries spread over a period, for several people. Used by the demo account (small sizes) and
// by the API bench (large sizes).
//
// Every row goes through the Writer (`w.insert`), so the change feed, row versions and the
// projects' last-changed-on are recorded as for any other write; rows are inserted in a few
// large transactions (one per kind, split every BATCH rows) to keep big datasets fast.
// Deterministic: the same sizes and seed give the same account.

import type { Store, Writer } from '../store/types.ts';
import { isoSeconds } from '../../shared/values.ts';
import { newToken } from './auth.ts';
import { addMember } from '../store/feed.ts';
import { clientCompanyIds, firmCompanyId } from '../store/queries/companies.ts';
import { firmAdminIds, peopleOfCompany, userNames } from '../store/queries/people.ts';
import { allProjectIds, membersWithFirm } from '../store/queries/projects.ts';

export interface DatasetSizes {
  /** New projects to create (content also goes into the store's existing projects that have members). */
  readonly projects?: number;
  /** Extra people to create in the firm (token sign-in only); they join every generated project. */
  readonly people?: number;
  readonly categoriesPerProject?: number;
  readonly milestonesPerProject?: number;
  readonly posts?: number;
  /** Comments in total: about 70% on posts, 25% on todo items, 5% on milestones. */
  readonly comments?: number;
  /** Todo lists in total (default: one per 50 items, so lists hold 50 items). */
  readonly todoLists?: number;
  readonly todoItems?: number;
  readonly timeEntries?: number;
  /** Dated records are spread over the `days` days before `now` (default 365). */
  readonly days?: number;
  readonly now?: Date;
  /** PRNG seed (default 1). */
  readonly seed?: number;
  /** Share of private posts, lists, milestones, comments and entries (default 0.08). */
  readonly privateShare?: number;
}

export interface DatasetSummary {
  readonly projects: number[];
  readonly people: number[];
  readonly counts: Readonly<Record<'projects' | 'people' | 'categories' | 'milestones' | 'posts' | 'comments' | 'todoLists' | 'todoItems' | 'timeEntries', number>>;
  /** A non-private todo list holding the most items (the bench reads it). */
  readonly biggestList: number | null;
  readonly ms: number;
}

const BATCH = 25_000;
const DAY = 86_400_000;

/** mulberry32: a small, fast, seedable PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- vocabulary ---------------------------------------------------------------------------
const FIRST = ['Mara', 'Jonas', 'Ines', 'Tariq', 'Lena', 'Owen', 'Priya', 'Hugo', 'Nadia', 'Felix', 'Ada', 'Ravi', 'Zoe', 'Emil', 'Sofia', 'Kenji', 'Lucia', 'Noah', 'Elif', 'Marco'];
const LAST = ['Berg', 'Alder', 'Stone', 'Ridge', 'Fjell', 'Moss', 'Crag', 'Holm', 'Vale', 'Brook', 'Pike', 'Larch', 'Dune', 'Heath', 'Cairn'];
const TITLES = ['Guide', 'Surveyor', 'Engineer', 'Designer', 'Coordinator', 'Analyst', 'Rigger', 'Logistics lead'];
const PROJECT_A = ['North Ridge', 'Glacier', 'Summit', 'Col du Loup', 'Valley Hut', 'Scree Field', 'Icefall', 'Base Camp', 'Moraine', 'Snowline', 'Couloir', 'Bivouac'];
const PROJECT_B = ['Survey', 'Route Rebuild', 'Website', 'Expedition', 'Refit', 'Launch', 'Mapping', 'Training Week', 'Booking System', 'Safety Review'];
const CATEGORIES = ['Announcements', 'Planning', 'Gear', 'Weather', 'Logistics', 'Client notes', 'Safety'];
const VERBS = ['Review', 'Draft', 'Check', 'Order', 'Fix', 'Plan', 'Update', 'Inspect', 'Book', 'Test', 'Write', 'Measure', 'Clean up', 'Confirm', 'Photograph'];
const OBJECTS = ['anchor placements', 'the rope inventory', 'pitch 3 topo', 'the client brief', 'hut reservations', 'the weather window', 'radio batteries',
  'the budget sheet', 'crampon sizes', 'the approach trail', 'the safety checklist', 'helicopter slots', 'the route description', 'insurance papers',
  'the gear list', 'photos of the icefall', 'the kitchen tent', 'GPS waypoints', 'the rescue plan', 'first-aid kits'];
const LIST_NAMES = ['Before departure', 'Gear', 'Permits and paperwork', 'On the mountain', 'After the trip', 'Website tasks', 'Client follow-up',
  'Training', 'Maintenance', 'Bookings', 'Research', 'Budget'];
const MILESTONES = ['Permits approved', 'Gear packed', 'Team briefing', 'Route opened', 'Client sign-off', 'Season start', 'Final report', 'Launch day'];
const POST_TITLES = ['Weekly status', 'Weather outlook for the weekend', 'Notes from the client call', 'New rope supplier', 'Route conditions update',
  'Budget check-in', 'Photos from the recce', 'Change of plans for Tuesday', 'Safety drill results', 'Booking confirmed', 'Lessons learned', 'Gear review'];
const SENTENCES = ['The forecast looks stable until Thursday.', 'We should double-check the anchors on pitch 3.', 'The client asked for a shorter approach.',
  'Please add your hours before Friday.', 'The new ropes arrived and are in the store room.', 'Snow conditions improved a lot this week.',
  'I moved the meeting to 9:00.', 'The hut warden confirmed our beds.', 'Let us keep the budget under review.', 'Great work on the survey, everyone.',
  'I uploaded the photos to the shared drive.', 'The helicopter slot is booked for the morning.', 'Two more harnesses need replacing.',
  'See the attached checklist & notes.', 'Can someone take over the radio check?'];
const ENTRY_TEXT = ['Route survey', 'Client call', 'Gear maintenance', 'Planning', 'Writing the report', 'Site visit', 'Bookings', 'Team meeting',
  'Code review', 'Training', 'Email', 'Mapping'];

interface Ctx {
  readonly r: () => number;
  readonly now: number;
  readonly days: number;
  readonly priv: number;
}
const pick = <T>(c: Ctx, a: readonly T[]): T => a[Math.floor(c.r() * a.length)];
const int = (c: Ctx, lo: number, hi: number): number => lo + Math.floor(c.r() * (hi - lo + 1));
const chance = (c: Ctx, p: number): boolean => c.r() < p;
/** A moment in the period, weighted towards recent days. */
const moment = (c: Ctx): number => c.now - Math.floor(Math.pow(c.r(), 1.3) * c.days * DAY) - int(c, 0, 12 * 3600) * 1000;
const dt = (ms: number): string => isoSeconds(new Date(ms));
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const sentences = (c: Ctx, n: number): string => Array.from({ length: n }, () => pick(c, SENTENCES)).join(' ');

/** Run `fn` for `n` rows in transactions of at most BATCH rows. */
async function batched(store: Store, n: number, fn: (w: Writer, i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < n; start += BATCH) {
    const end = Math.min(n, start + BATCH);
    await store.write(async (w) => {
      for (let i = start; i < end; i++) await fn(w, i);
    });
  }
}

interface ProjectInfo { id: number; members: number[]; firmMembers: number[]; categories: number[]; milestones: number[]; lists: number[]; items: number[]; offset: number }

/** The k-th name of a vocabulary for one project: distinct until the vocabulary runs out, then numbered. */
const nth = (names: readonly string[], p: ProjectInfo, k: number): string => {
  const round = Math.floor(k / names.length);
  return `${names[(p.offset + k) % names.length]}${round ? ` ${round + 1}` : ''}`;
};

/**
 * Fill a store that already holds an account (a seed import) with generated content.
 * Returns what was made and how long it took.
 */
export async function generateDataset(store: Store, sizes: DatasetSizes = {}): Promise<DatasetSummary> {
  const t0 = performance.now();
  const c: Ctx = {
    r: prng(sizes.seed ?? 1), now: (sizes.now ?? new Date()).getTime(), days: Math.max(1, sizes.days ?? 365),
    priv: sizes.privateShare ?? 0.08,
  };
  const firmId = await firmCompanyId(store);
  if (firmId === undefined) throw new Error('generateDataset needs an account: import a seed first');
  const firm = { id: firmId };
  const clients = await clientCompanyIds(store);
  const counts = { projects: 0, people: 0, categories: 0, milestones: 0, posts: 0, comments: 0, todoLists: 0, todoItems: 0, timeEntries: 0 };

  // ---- people and projects (one transaction)
  const newPeople: number[] = [];
  const newProjects: number[] = [];
  await store.write(async (w) => {
    const taken = new Set(await userNames(w));
    for (let i = 0; i < (sizes.people ?? 0); i++) {
      const first = FIRST[i % FIRST.length], last = LAST[Math.floor(i / FIRST.length + i) % LAST.length];
      let user = `${first}.${last}`.toLowerCase();
      for (let k = 2; taken.has(user); k++) user = `${first}.${last}${k}`.toLowerCase();
      taken.add(user);
      newPeople.push(await w.insert('people', {
        first_name: first, last_name: last, email_address: `${user}@example.com`, user_name: user, title: pick(c, TITLES),
        time_zone_name: 'UTC', company_id: firm.id, administrator: 0, token: newToken(), password_hash: null,
        created_at: w.now, updated_at: w.now,
      }));
    }
    const firmPeople = await peopleOfCompany(w, firm.id);
    for (let i = 0; i < (sizes.projects ?? 0); i++) {
      const company = clients.length && i % 2 === 0 ? clients[(i / 2) % clients.length] : firm.id;
      const created = c.now - c.days * DAY - int(c, 0, 90) * DAY;
      const id = await w.insert('projects', {
        name: `${PROJECT_A[i % PROJECT_A.length]} ${PROJECT_B[Math.floor(i / PROJECT_A.length + i) % PROJECT_B.length]}${i >= PROJECT_A.length * PROJECT_B.length ? ` ${i}` : ''}`,
        status: i % 7 === 6 ? 'on_hold' : 'active', company_id: company, announcement: null, start_page: 'log',
        show_writeboards: 0, show_announcement: 0, created_on: day(created), last_changed_on: w.now,
      });
      const members = new Set(firmPeople);
      if (company !== firm.id) {
        for (const p of await peopleOfCompany(w, company)) members.add(p);
      }
      for (const m of members) await addMember(w, id, m);
      newProjects.push(id);
    }
  });
  counts.people = newPeople.length;
  counts.projects = newProjects.length;

  // Every project with members receives content.
  const admins = await firmAdminIds(store);
  const projects: ProjectInfo[] = [];
  for (const pid of await allProjectIds(store)) {
    const rows = await membersWithFirm(store, pid);
    const members = rows.map((x) => x.personId);
    if (!members.length) continue;
    const firmMembers = rows.filter((x) => x.firm).map((x) => x.personId);
    projects.push({ id: pid, members, firmMembers: firmMembers.length ? firmMembers : admins.length ? admins : members, categories: [], milestones: [], lists: [], items: [], offset: Math.floor(c.r() * 1000) });
  }
  if (!projects.length) throw new Error('generateDataset: no project has members');
  const proj = (i: number): ProjectInfo => projects[i % projects.length];
  const author = (p: ProjectInfo): number => (chance(c, 0.85) ? pick(c, p.firmMembers) : pick(c, p.members));

  // ---- categories and milestones
  await store.write(async (w) => {
    for (const p of projects) {
      const names = [...CATEGORIES].sort(() => c.r() - 0.5).slice(0, sizes.categoriesPerProject ?? 4);
      for (const [k, name] of names.entries()) {
        p.categories.push(await w.insert('categories', { name, project_id: p.id, type: k === names.length - 1 && names.length > 1 ? 'attachment' : 'post' }, p.id));
      }
      for (let k = 0; k < (sizes.milestonesPerProject ?? 4); k++) {
        const created = moment(c);
        const deadline = created + int(c, -20, 60) * DAY;
        const done = deadline < c.now && chance(c, 0.7);
        const party = chance(c, 0.6) ? pick(c, p.members) : null;
        p.milestones.push(await w.insert('milestones', {
          title: nth(MILESTONES, p, k), deadline: day(deadline), project_id: p.id, private: chance(c, c.priv) ? 1 : 0,
          completed: done ? 1 : 0, completed_at: done ? dt(deadline) : null, completer_id: done ? pick(c, p.firmMembers) : null,
          created_on: dt(created), creator_id: pick(c, p.firmMembers), wants_notification: 0,
          responsible_party_id: party, responsible_party_type: party ? 'Person' : null,
        }, p.id));
      }
    }
  });
  counts.categories = projects.reduce((n, p) => n + p.categories.length, 0);
  counts.milestones = projects.reduce((n, p) => n + p.milestones.length, 0);

  // ---- todo lists and items: items spread evenly over lists, positions 1..n
  const nItems = sizes.todoItems ?? 0;
  const nLists = sizes.todoLists ?? Math.ceil(nItems / 50);
  const listPrivate = new Map<number, boolean>();
  await store.write(async (w) => {
    for (let i = 0; i < nLists; i++) {
      const p = proj(i);
      const priv = chance(c, c.priv);
      const id = await w.insert('todo_lists', {
        name: nth(LIST_NAMES, p, p.lists.length), description: chance(c, 0.5) ? pick(c, SENTENCES) : '', position: p.lists.length + 1,
        private: priv ? 1 : 0, project_id: p.id, tracked: chance(c, 0.3) ? 1 : 0,
        milestone_id: p.milestones.length && chance(c, 0.2) ? pick(c, p.milestones) : null,
      }, p.id);
      p.lists.push(id);
      listPrivate.set(id, priv);
    }
  });
  counts.todoLists = nLists;
  const listIds = projects.flatMap((p) => p.lists.map((l) => [l, p] as const));
  const listSize = new Map<number, number>();
  const itemProject: number[] = [];
  const itemIds: number[] = [];
  if (nLists > 0) {
    await batched(store, nItems, async (w, i) => {
      const [list, p] = listIds[i % listIds.length];
      const position = (listSize.get(list) ?? 0) + 1;
      listSize.set(list, position);
      const created = moment(c);
      const done = chance(c, 0.3);
      const assigned = chance(c, 0.5);
      const company = assigned && chance(c, 0.1);
      const id = await w.insert('todo_items', {
        content: `${pick(c, VERBS)} ${pick(c, OBJECTS)}`, todo_list_id: list, project_id: p.id, position,
        completed: done ? 1 : 0, completed_at: done ? dt(Math.min(c.now, created + int(c, 1, 20) * DAY)) : null,
        completer_id: done ? pick(c, p.members) : null,
        due_at: chance(c, 0.3) ? `${day(created + int(c, 2, 40) * DAY)}T00:00:00Z` : null,
        responsible_party_id: assigned ? (company ? firm.id : pick(c, p.members)) : null,
        responsible_party_type: assigned ? (company ? 'Company' : 'Person') : null,
        creator_id: author(p), created_at: dt(created), updated_at: dt(created),
      }, p.id);
      p.items.push(id);
      itemIds.push(id);
      itemProject.push(p.id);
    });
  }
  counts.todoItems = itemIds.length;

  // ---- posts
  const postIds: { id: number; p: ProjectInfo; at: number }[] = [];
  await batched(store, sizes.posts ?? 0, async (w, i) => {
    const p = proj(i);
    const at = moment(c);
    const cats = p.categories.length > 1 ? p.categories.slice(0, -1) : p.categories;
    const id = await w.insert('posts', {
      // Distinct titles while they last (5 is coprime with 12), then numbered: no two posts read the same.
      title: i < POST_TITLES.length ? POST_TITLES[(i * 5) % POST_TITLES.length] : `${POST_TITLES[i % POST_TITLES.length]} (${Math.floor(i / POST_TITLES.length) + 1})`, body: sentences(c, int(c, 1, 5)), extended_body: chance(c, 0.2) ? sentences(c, 3) : '',
      category_id: cats.length && chance(c, 0.7) ? pick(c, cats) : null,
      milestone_id: p.milestones.length && chance(c, 0.1) ? pick(c, p.milestones) : null,
      use_textile: 0, private: chance(c, c.priv) ? 1 : 0, posted_on: dt(at), project_id: p.id, author_id: author(p),
    }, p.id);
    postIds.push({ id, p, at });
  });
  counts.posts = postIds.length;

  // ---- comments: on posts, todo items and milestones
  const nComments = sizes.comments ?? 0;
  const allMilestones = projects.flatMap((p) => p.milestones.map((m) => [m, p] as const));
  const projectById = new Map(projects.map((p) => [p.id, p]));
  await batched(store, nComments, async (w) => {
    const roll = c.r();
    let type: 'Post' | 'TodoItem' | 'Milestone';
    let parent: number, p: ProjectInfo, after: number;
    if ((roll < 0.7 || (!itemIds.length && !allMilestones.length)) && postIds.length) {
      const x = pick(c, postIds);
      [type, parent, p, after] = ['Post', x.id, x.p, x.at];
    } else if ((roll < 0.95 || !allMilestones.length) && itemIds.length) {
      const k = Math.floor(c.r() * itemIds.length);
      [type, parent, p, after] = ['TodoItem', itemIds[k], projectById.get(itemProject[k])!, c.now - c.days * DAY];
    } else if (allMilestones.length) {
      const [m, mp] = pick(c, allMilestones);
      [type, parent, p, after] = ['Milestone', m, mp, c.now - c.days * DAY];
    } else return;
    const at = Math.min(c.now, after + Math.floor(c.r() * Math.max(DAY, c.now - after)));
    await w.insert('comments', {
      body: sentences(c, int(c, 1, 3)), author_id: author(p), commentable_type: type, commentable_id: parent,
      created_at: dt(at), private: chance(c, c.priv / 2) ? 1 : 0, project_id: p.id,
    }, p.id);
    counts.comments++;
  });

  // ---- time entries: several people, each on the projects they belong to, over the period
  // (uniformly, on weekdays), some on todo items of the project
  const byPerson = new Map<number, ProjectInfo[]>();
  for (const p of projects) for (const m of p.members) byPerson.set(m, [...(byPerson.get(m) ?? []), p]);
  const firmSet = new Set(projects.flatMap((p) => p.firmMembers));
  const workers = [...byPerson.keys()].filter((m) => firmSet.has(m));
  const clientWorkers = [...byPerson.keys()].filter((m) => !firmSet.has(m));
  await batched(store, sizes.timeEntries ?? 0, async (w) => {
    const person = clientWorkers.length && chance(c, 0.1) ? pick(c, clientWorkers) : pick(c, workers.length ? workers : clientWorkers);
    const p = pick(c, byPerson.get(person)!);
    const onItem = p.items.length > 0 && chance(c, 0.2);
    let at = c.now - Math.floor(c.r() * c.days) * DAY;
    const wd = new Date(at).getUTCDay();
    if (wd === 0 || wd === 6) at -= (wd === 0 ? 2 : 1) * DAY;
    await w.insert('time_entries', {
      project_id: p.id, person_id: person, date: day(at), hours: int(c, 1, 32) / 4,
      description: pick(c, ENTRY_TEXT), private: chance(c, c.priv / 2) ? 1 : 0, todo_item_id: onItem ? pick(c, p.items) : null,
    }, p.id);
    counts.timeEntries++;
  });

  let biggestList: number | null = null, most = -1;
  for (const [id, n] of listSize) if (!listPrivate.get(id) && n > most) { most = n; biggestList = id; }
  return {
    projects: projects.map((p) => p.id), people: newPeople, counts, biggestList, ms: Math.round(performance.now() - t0),
  };
}
