#!/usr/bin/env node
// docs/api.md, the API reference, generated so that it cannot drift from the code: the field tables,
// write rules, visibility conditions, forms and Location forms come from the registry
// (shared/registry.ts), the routes from the route plugins themselves (electron/http/app.ts
// API_PLUGINS, collected as they register), and the prose from docs/api.template.md, whose
// `{{name}}` markers this script fills. `npm run docs:api` writes the file; tests/scripts/api-docs.test.ts
// fails when the committed file differs from what this script generates.

import Fastify, { type RouteOptions } from 'fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postSummaryFields, RESOURCES, type Field, type Resource, type ShowWhen } from '../shared/registry.ts';
import { API_PLUGINS } from '../electron/http/app.ts';
import type { RouteConfig } from '../electron/http/api.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const TEMPLATE = resolve(ROOT, 'docs', 'api.template.md');
export const OUTPUT = resolve(ROOT, 'docs', 'api.md');

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|');

const SHOWN: Record<Exclude<ShowWhen, 'set'>, string> = {
  firm: 'the caller is a firm person',
  admin: 'the caller is an administrator',
  adminOrSelf: 'the caller is an administrator, or the record is the caller',
  me: 'the record is the caller, on `/me.xml` and `/people/me.xml`',
  announcement: "the caller is an administrator, or the project's `show-announcement` is true",
  firmRecord: 'the record is the firm',
};

const REF: Record<NonNullable<Field['ref']>, string> = {
  postCategory: 'a post category of the same project',
  milestone: 'a milestone of the same project that the caller sees',
  todoItem: 'a todo item of the same project that the caller sees',
  member: 'a person with access to the project whom the caller sees',
  party: "a person with access to the project, or one of the project's companies, whom the caller sees",
};

const typeName = (f: Field): string => {
  if (f.type === 'nested') return `nested \`<${f.name}>\``;
  if (f.type === 'array') return `array of \`<${f.of}>\``;
  if (f.type === 'untyped-boolean') return 'untyped boolean';
  return f.type === 'string' ? 'string' : f.type;
};

function writeCell(f: Field): string {
  if (!f.write) return '';
  const who = f.writeBy === 'firm' ? ' (firm)' : f.writeBy === 'admin' ? ' (admin)' : '';
  const as = f.input ? ` as ${code(f.input)}` : '';
  return `${f.write}${who}${as}`;
}

function createCell(f: Field): string {
  if (!f.write) return '';
  if (f.required) return 'required';
  if (f.default === undefined) return '';
  if (f.default === null) return 'default none';
  return f.default === '' ? 'default `""`' : `default ${code(String(f.default))}`;
}

function notes(f: Field): string {
  const out: string[] = [];
  if (f.show === 'set') out.push('only when set');
  else if (f.show) out.push(`only when ${SHOWN[f.show]}`);
  if (f.values) out.push(`one of ${f.values.map(code).join(', ')}`);
  if (f.max) out.push(`at most ${f.max} characters`);
  if (f.inputKind === 'hours') out.push('input as decimal or `H:MM`');
  if (f.ref) out.push(REF[f.ref]);
  if (f.ref && f.type === 'integer' && !f.nil && f.show !== 'set') out.push('none reads `0` (never nil)');
  if (f.nameOf) out.push(`name of the ${f.nameOf.kind === 'party' ? 'responsible party' : f.nameOf.kind} in \`${f.nameOf.id.replace(/_/g, '-')}\`; '' for a client who cannot see it`);
  if (f.ref === 'milestone') out.push('a private milestone reads as none to clients');
  if (f.type === 'nested' && f.fields) out.push(`holds ${f.fields.map((x) => code(x.name)).join(', ')}`);
  return out.join('; ');
}

function fieldTable(fields: readonly Field[]): string {
  const rows = fields.map((f) => `| ${code(f.name)} | ${typeName(f)} | ${f.nil ? 'yes' : ''} | ${writeCell(f)} | ${createCell(f)} | ${cell(notes(f))} |`);
  return ['| Element | Type | Nil | Write | Create | Notes |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

function resourceSection(r: Resource): string {
  const writable = r.fields.filter((f) => f.write).map((f) => code(f.input ?? f.name));
  const lines = [
    `### ${r.element}`, '',
    `Record \`<${r.element}>\`, collection \`<${r.collection} type="array">\`.` +
      (writable.length ? ` Input fields: ${writable.join(', ')}; in request bodies the record element is named ${r.recordNames.map(code).join(' or ')}.` : ' Read-only through this API.'),
    '', fieldTable(r.fields),
  ];
  if (r.key === 'post') lines.push('', 'The **summary form** of a post (the archive routes) has exactly:', '', fieldTable(postSummaryFields));
  return lines.join('\n');
}

interface RouteRow { path: string; style: string; methods: string; body: boolean; json: boolean }

/** The routes of every API plugin, as they register (the `.json` twins folded into their `.xml` route). */
export async function collectRoutes(): Promise<[string, RouteRow[]][]> {
  const out: [string, RouteRow[]][] = [];
  for (const [name, plugin] of Object.entries(API_PLUGINS)) {
    const rows: RouteRow[] = [];
    const app = Fastify();
    app.addHook('onRoute', (o: RouteOptions) => {
      const c = o.config as Partial<RouteConfig> | undefined;
      // Fastify also announces the HEAD twin of a GET route: one row per path.
      if (!c?.allow || !c.spec || c.json || rows.some((r) => r.path === o.url)) return;
      rows.push({
        path: o.url, style: c.spec.style === 'action' ? 'A' : 'R',
        methods: c.spec.any ? 'any' : c.allow.join(', '), body: c.spec.body === true, json: o.url.endsWith('.xml'),
      });
    });
    await app.register(plugin);
    await app.ready();
    await app.close();
    out.push([name, rows]);
  }
  return out;
}

const TITLES: Record<keyof typeof API_PLUGINS, string> = {
  projects: 'Projects', people: 'People', companies: 'Companies', categories: 'Categories', posts: 'Posts (messages)',
  comments: 'Comments', milestones: 'Milestones', todoLists: 'Todo lists', todoItems: 'Todo items', timeEntries: 'Time entries',
  sync: 'Sync (extension: see docs/sync-protocol.md)',
};

function routesSection(groups: [string, RouteRow[]][]): string {
  return groups.filter(([, rows]) => rows.length).map(([name, rows]) => [
    `### ${TITLES[name as keyof typeof API_PLUGINS] ?? name}`, '',
    '| Path | Style | Methods | Body |', '|---|---|---|---|',
    ...rows.map((r) => `| ${code(r.path.replace(/:(\w+)/g, '{$1}'))}${r.json ? ' (+ `.json`)' : ''} | ${r.style} | ${r.methods} | ${r.body ? 'yes' : ''} |`),
  ].join('\n')).join('\n\n');
}

function locations(): string {
  const rows = Object.values(RESOURCES).filter((r) => r.location).map((r) => `  | ${r.element} | ${code(r.location!(123).replace('123', '{id}'))} |`);
  return ['', '  | Created record | `Location` |', '  |---|---|', ...rows].join('\n');
}

function shownPerCaller(): string {
  const rows: string[] = [];
  for (const r of Object.values(RESOURCES)) {
    for (const f of r.fields) if (f.show && f.show !== 'set') rows.push(`| ${r.element} | ${code(f.name)} | ${SHOWN[f.show]} |`);
  }
  return rows.join('\n');
}

function nameFields(): string {
  const list = Object.values(RESOURCES).flatMap((r) => r.fields.filter((f) => f.nameOf).map((f) => `${r.element} ${code(f.name)}`));
  return `\nThe name fields concerned: ${list.join(', ')}.`;
}

function templates(): string {
  return Object.values(RESOURCES).filter((r) => r.template).map((r) => `| \`<${r.element}>\` | ${r.template!
    .map((t) => `${code(t.name)} (${t.type}${t.firmOnly ? ', firm only' : ''})`).join(', ')} |`).join('\n');
}

/** The whole of docs/api.md. */
export async function generateApiDocs(template = readFileSync(TEMPLATE, 'utf8')): Promise<string> {
  const parts: Record<string, string> = {
    locations: locations(),
    'name-fields': nameFields(),
    'shown-per-caller': shownPerCaller(),
    resources: Object.values(RESOURCES).map(resourceSection).join('\n\n'),
    routes: routesSection(await collectRoutes()),
    templates: templates(),
  };
  const text = template.replace(/\{\{([\w-]+)\}\}/g, (m, k: string) => {
    if (!(k in parts)) throw new Error(`docs/api.template.md: unknown marker ${m}`);
    return parts[k];
  });
  return text.endsWith('\n') ? text : `${text}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await generateApiDocs();
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT} (${text.length} characters)\n`);
}
