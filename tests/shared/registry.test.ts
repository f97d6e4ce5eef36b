import { describe, expect, it } from 'vitest';
import { RESOURCES, TABLE_ORDER, column, writableFields } from '../../shared/registry.ts';

describe('resource registry', () => {
  const all = Object.values(RESOURCES);

  it('names every resource once, with unique fields, dasherized', () => {
    expect(new Set(all.map((r) => r.table)).size).toBe(all.length);
    expect([...TABLE_ORDER].sort()).toEqual(Object.keys(RESOURCES).sort());
    for (const r of all) {
      const names = r.fields.map((f) => f.name);
      expect(new Set(names).size, r.key).toBe(names.length);
      for (const n of names) expect(n, `${r.key}.${n}`).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(names).toContain('id');
    }
  });

  it('gives Location forms exactly as §4.7', () => {
    const loc = Object.fromEntries(all.filter((r) => r.location).map((r) => [r.key, r.location!(42)]));
    expect(loc).toEqual({
      project: '/projects/42.xml', category: '/categories/42.xml', post: '/posts/42.xml', comment: '/comments/42.xml',
      todoList: '/todo_lists/42', todoItem: '/todo_items/42', timeEntry: '/time_entries/42', milestone: '/milestones/42',
    });
  });

  it('declares templates (§8.11) from writable fields, private only for firm callers', () => {
    for (const r of all.filter((x) => x.template)) {
      const inputs = writableFields(r, 'create').map((f) => f.input ?? f.name);
      for (const t of r.template!) expect(inputs, `${r.key} template ${t.name}`).toContain(t.name);
      const priv = r.template!.find((t) => t.name === 'private');
      if (priv) expect(priv.firmOnly).toBe(true);
    }
  });

  it('marks private as firm-written and firm-shown wherever it exists (§5.2)', () => {
    for (const r of all) {
      const p = r.fields.find((f) => f.name === 'private');
      if (p) expect([p.writeBy, p.show, p.stored]).toEqual(['firm', 'firm', true]);
    }
    expect(all.filter((r) => r.fields.some((f) => f.name === 'private')).map((r) => r.key).sort())
      .toEqual(['comment', 'milestone', 'post', 'timeEntry', 'todoList']);
  });

  it('says what every writable reference may point at (checked by service/references.ts)', () => {
    const refs = all.flatMap((r) => r.fields.filter((f) => f.inputKind === 'reference' || f.inputKind === 'party').map((f) => `${r.key}.${f.name}:${f.ref}`));
    expect(refs.sort()).toEqual([
      'milestone.responsible-party-id:party', 'post.category-id:postCategory', 'post.milestone-id:milestone',
      'timeEntry.person-id:member', 'timeEntry.todo-item-id:todoItem', 'todoItem.responsible-party-id:party',
      'todoList.milestone-id:milestone',
    ]);
  });

  it('has a column for every writable field and a max of 255 on names and titles (§7)', () => {
    for (const r of all) {
      for (const f of writableFields(r, 'create')) expect(f.stored, `${r.key}.${f.name}`).toBe(true);
      for (const n of ['name', 'title']) {
        const f = r.fields.find((x) => x.name === n && x.write);
        if (f) expect(f.max, `${r.key}.${n}`).toBe(255);
      }
    }
    expect(column('todo-list-id')).toBe('todo_list_id');
  });
});
