// new.xml / edit.xml (contract §8.11), for every resource that declares `template` fields in the
// registry. A blank template holds each template field empty (nil, with its type); a filled one
// holds the record's current values in the record's own form (a non-nil integer that is unset
// reads 0, as the record shows it), unset values nil. `private` (firmOnly) only for firm callers.
// The route plugin adds the X-Create-Action / X-Update-Action header.

import { column, type Field, type FieldType, type Resource, type TemplateField } from '../../shared/registry.ts';
import type { Caller, Ctx } from './context.ts';
import { redact } from './redact.ts';
import type { Row } from '../store/types.ts';

export type TemplateEntry = readonly [string, FieldType, unknown];
export interface Template { readonly root: string; readonly entries: readonly TemplateEntry[] }

const fieldsFor = (r: Resource, caller: Caller): readonly TemplateField[] =>
  (r.template ?? []).filter((t) => !t.firmOnly || caller.firm);

/** The registry field behind a template field: same name, or the field whose input name it is. */
const backing = (r: Resource, name: string): Field | undefined =>
  r.fields.find((f) => f.name === name) ?? r.fields.find((f) => f.input === name);

/** Unset value as the record shows it: null (nil) unless the field is never nil on the wire. */
function unset(f: Field | undefined, t: TemplateField): unknown {
  if (!f || f.nil || f.show === 'set') return null;
  switch (t.type) {
    case 'integer': return 0;
    case 'boolean': return false;
    case 'string': return '';
    default: return null;
  }
}

function valueOf(r: Resource, t: TemplateField, row: Row): unknown {
  const f = backing(r, t.name);
  if (f?.inputKind === 'party') {
    const id = row[column(f.name)];
    if (id === null || id === undefined) return null;
    return row[column(f.name).replace(/_id$/, '_type')] === 'Company' ? `c${id}` : String(id);
  }
  const v = row[column(f?.name ?? t.name)];
  return v === null || v === undefined ? unset(f, t) : v;
}

/** Blank template (new.xml). */
export function blankTemplate(r: Resource, caller: Caller): Template {
  return { root: r.element, entries: fieldsFor(r, caller).map((t) => [t.name, t.type, null] as const) };
}

/** Filled template (edit.xml) from a record row as the queries return it. */
export function filledTemplate(r: Resource, caller: Caller, row: Row): Template {
  return { root: r.element, entries: fieldsFor(r, caller).map((t) => [t.name, t.type, valueOf(r, t, row)] as const) };
}

/**
 * The edit form (edit.xml) of a record as the caller sees it (D32): what the record hides from the
 * caller is hidden here too, and saving the form back unchanged keeps it (references.ts).
 */
export async function editForm(ctx: Ctx, r: Resource, row: Row): Promise<Template> {
  await redact(ctx, r, [row]);
  return filledTemplate(r, ctx.caller, row);
}
