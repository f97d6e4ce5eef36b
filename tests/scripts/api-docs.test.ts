// docs/api.md is generated (scripts/api-docs.ts, `npm run docs:api`) from the registry, the route table
// and docs/api.template.md: it must be exactly what the script writes, so that it cannot drift.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { collectRoutes, generateApiDocs, OUTPUT } from '../../scripts/api-docs.ts';
import { RESOURCES } from '../../shared/registry.ts';

describe('docs/api.md', () => {
  it('is what `npm run docs:api` generates (run it after changing the registry, a route or the template)', async () => {
    const committed = readFileSync(OUTPUT, 'utf8');
    expect(committed === await generateApiDocs(), 'docs/api.md is stale: run `npm run docs:api` and commit it').toBe(true);
  });

  it('documents every resource field and every route', async () => {
    const doc = await generateApiDocs();
    for (const r of Object.values(RESOURCES)) {
      expect(doc).toContain(`### ${r.element}\n`);
      for (const f of r.fields) expect(doc, `${r.element} ${f.name}`).toContain(`| \`${f.name}\` |`);
    }
    const routes = (await collectRoutes()).flatMap(([, rows]) => rows);
    expect(routes.length).toBeGreaterThan(80);
    for (const r of routes) expect(doc, r.path).toContain(`\`${r.path.replace(/:(\w+)/g, '{$1}')}\``);
    expect(doc).not.toMatch(/\{\{[\w-]+\}\}/);
  });

  it('a change to the template shows in the output (the comparison can fail)', async () => {
    const doc = await generateApiDocs('# Title\n{{templates}}\n');
    expect(doc.startsWith('# Title\n| `<post>` |')).toBe(true);
    await expect(generateApiDocs('{{no-such-part}}')).rejects.toThrow(/unknown marker/);
  });
});
