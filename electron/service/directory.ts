// People and companies: read-only through the API (contract §8.2, §8.3, §5.3).

import { getCompany, listCompanies } from '../store/queries/companies.ts';
import { getPerson, listPeople } from '../store/queries/people.ts';
import { projectCompanyIds } from '../store/queries/projects.ts';
import { forbidden, notFound, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import type { Row } from '../store/types.ts';

export async function company(ctx: Ctx, id: number): Promise<Row> {
  const c = await getCompany(ctx.store, ctx.caller, id);
  if (!c) throw notFound('Company');
  return c;
}

export const companies = (ctx: Ctx): Promise<Row[]> => listCompanies(ctx.store, ctx.caller);

/** `/contacts/companies`: all companies, firm people only. */
export function allCompanies(ctx: Ctx): Promise<Row[]> {
  if (!ctx.caller.firm) throw forbidden('Only people of the firm can list all companies');
  return listCompanies(ctx.store, ctx.caller);
}

export async function projectCompanies(ctx: Ctx, projectId: number): Promise<Row[]> {
  await projects.get(ctx, projectId);
  const ids = (await projectCompanyIds(ctx.store, projectId)).map((r) => Number(r.id));
  return listCompanies(ctx.store, ctx.caller, ids);
}

export async function person(ctx: Ctx, id: number): Promise<Row> {
  const p = await getPerson(ctx.store, ctx.caller, id);
  if (!p) throw notFound('Person');
  return p;
}

export const me = (ctx: Ctx): Promise<Row> => person(ctx, ctx.caller.id);

export const everyone = (ctx: Ctx): Promise<Row[]> => listPeople(ctx.store, ctx.caller);

export async function peopleOfCompany(ctx: Ctx, companyId: number): Promise<Row[]> {
  await company(ctx, companyId);
  return listPeople(ctx.store, ctx.caller, { companyId });
}

export async function projectPeople(ctx: Ctx, projectId: number, companyId?: number): Promise<Row[]> {
  await projects.get(ctx, projectId);
  if (companyId !== undefined) await company(ctx, companyId);
  return listPeople(ctx.store, ctx.caller, { projectId, companyId });
}
