// First run (docs/setup.md, D96): a data directory with no account offers to create your own account
// (firm, your name, user name, password, a first project) or to load the demo. Once an account exists
// these operations refuse (409); the status tells the sign-in page whether the demo is in use.

import { getMeta } from '../store/queries/account.ts';
import type { Store } from '../store/types.ts';
import { importSeed } from './account.ts';
import { ApiError, check } from './context.ts';
import { DEMO_ACCOUNT, seedDemo } from './demo.ts';

export interface SetupStatus {
  /** No account yet: the first-run choices apply. */
  readonly empty: boolean;
  /**
   * The demo account is what this data directory holds: its administrator's user name, for the sign-in
   * page. Never a password (issue #25, D241): the page shows the documented demo password from its own text.
   */
  readonly demo: { readonly user: string } | null;
}

export interface OwnAccount {
  firmName: string; firstName: string; lastName: string; userName: string; password: string;
  email?: string; projectName?: string;
}

const demoAdmin = DEMO_ACCOUNT.people.find((p) => p.administrator) ?? DEMO_ACCOUNT.people[0];

export async function status(store: Store): Promise<SetupStatus> {
  if (await store.isEmpty()) return { empty: true, demo: null };
  const name = await getMeta(store, 'account_name');
  return { empty: false, demo: name === DEMO_ACCOUNT.account.name ? { user: demoAdmin['user-name'] } : null };
}

const taken = (): ApiError => new ApiError(409, ['This data directory already holds an account: sign in instead']);

/** The problems of an own-account form, one message per problem (§4.4). */
export function checkOwn(a: Partial<OwnAccount>): string[] {
  const errors: string[] = [];
  const t = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  if (!t(a.firmName)) errors.push("Firm name can't be blank");
  if (!t(a.firstName)) errors.push("First name can't be blank");
  if (!t(a.lastName)) errors.push("Last name can't be blank");
  if (!/^[A-Za-z0-9._@-]{2,64}$/.test(t(a.userName))) errors.push('User name must be 2 to 64 letters, digits, dots, dashes, underscores or @');
  if (typeof a.password !== 'string' || a.password.length < 8) errors.push('Password must have at least 8 characters');
  for (const [k, v] of Object.entries(a)) if (typeof v === 'string' && v.length > 255) errors.push(`${k} is too long (maximum is 255 characters)`);
  return errors;
}

/** Create the account of the person setting Bivouac up: they are its administrator. */
export async function createOwn(store: Store, a: OwnAccount): Promise<void> {
  check(checkOwn(a));
  if (!(await store.isEmpty())) throw taken();
  const user = a.userName.trim();
  await importSeed(store, {
    format: 'bivouac-seed/1',
    account: { name: a.firmName.trim() },
    companies: [{ key: 'firm', firm: true, name: a.firmName.trim() }],
    people: [{
      key: 'you', company: 'firm', 'first-name': a.firstName.trim(), 'last-name': a.lastName.trim(),
      'email-address': a.email?.trim() || `${user}@localhost`, 'user-name': user, password: a.password, administrator: true,
    }],
    projects: [{ key: 'first', name: a.projectName?.trim() || 'First project', members: ['you'] }],
  });
}

export async function loadDemo(store: Store): Promise<void> {
  if (!(await store.isEmpty())) throw taken();
  await seedDemo(store);
}
