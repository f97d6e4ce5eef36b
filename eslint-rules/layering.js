// Local ESLint rule `bivouac/layering`: which layer of the repository may import what
// (in the spirit of VS Code's code-layering rule).
//
// Every module specifier (import, export … from, import(), require()) is classified as:
//   - a top folder of the repository (`shared`, `electron`, `renderer`, …) for relative specifiers,
//     resolved against the importing file;
//   - `#node` for Node built-ins (`node:fs`, `fs`, `path/posix`, …);
//   - `#electron` for the `electron` package;
//   - `#package` for any other bare specifier (npm packages).
// The importing file's layer is the longest key of `layers` that is a prefix of its path relative to
// the working directory (so `electron/main.ts` can be more permissive than `electron/`, and
// `electron/store/` stricter). Files under no key are not checked. A layer lists what it may import
// in `allow` ('*' allows everything) and may forbid particular packages in `denyPackages`, and files or
// folders it would otherwise allow in `deny` (with the reason, `denyWhy`, in the message). An entry
// of `allow` is one of the `#` kinds above or a repository path: a folder (`shared`,
// `electron/service`) allows every file below it, a file (`electron/store/types.ts`) only itself.
// So layers nest: `electron/store` may import `electron/store` and `shared` only, not the
// `electron/service` above it (D40).

import { builtinModules } from 'node:module';
import path from 'node:path';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]]));

/** What a module specifier points at, from a file at `fromRel` (repo-relative, POSIX separators). */
export function classify(spec, fromRel) {
  if (spec.startsWith('node:')) return { kind: '#node' };
  if (spec === 'electron' || spec.startsWith('electron/')) return { kind: '#electron' };
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const target = path.posix.normalize(spec.startsWith('/') ? spec.slice(1) : path.posix.join(path.posix.dirname(fromRel), spec));
    if (target.startsWith('../') || target === '..') return { kind: '#outside', target };
    return { kind: target.split('/')[0], target };
  }
  const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  if (BUILTINS.has(pkg)) return { kind: '#node' };
  return { kind: '#package', pkg };
}

const DESCRIBE = { '#node': 'a Node built-in', '#electron': 'the electron package', '#package': 'a package', '#outside': 'a file outside the repository' };
const PLURAL = { '#node': 'Node built-ins', '#electron': 'electron', '#package': 'packages', '#outside': 'files outside the repository' };
const shown = (name) => (/\.[cm]?[jt]sx?$/.test(name) ? name : `${name}/`);

function layerOf(rel, layers) {
  let best = null;
  for (const key of Object.keys(layers)) {
    const k = key.replace(/\/$/, '');
    if ((rel === k || rel.startsWith(`${k}/`)) && (!best || k.length > best.length)) best = k;
  }
  return best === null ? null : { name: best, ...(layers[best] ?? layers[`${best}/`]) };
}

/** Whether the `allow` entry `entry` admits the classified specifier `c`. */
export function allows(entry, c) {
  if (entry.startsWith('#')) return entry === c.kind;
  if (c.target === undefined) return false;
  const e = entry.replace(/\/$/, '');
  return c.target === e || c.target.startsWith(`${e}/`);
}

/**
 * How to name a forbidden target in the message: its top folder when the importing layer may import
 * nothing of that folder (`electron/`), else the most specific layer holding it (`electron/service`).
 */
function targetLayer(target, allow, layers) {
  const top = target.split('/')[0];
  const partly = allow.some((a) => !a.startsWith('#') && a.split('/')[0] === top);
  return partly ? (layerOf(target, layers)?.name ?? top) : top;
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the layering of shared/, electron/ and renderer/ (see docs/architecture.md)' },
    schema: [{
      type: 'object',
      properties: {
        layers: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: {
              allow: { type: 'array', items: { type: 'string' } },
              denyPackages: { type: 'array', items: { type: 'string' } },
              deny: { type: 'array', items: { type: 'string' } },
              denyWhy: { type: 'string' },
            },
            required: ['allow'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    }],
    messages: {
      forbidden: "{{layer}} may not import '{{spec}}' ({{what}}); it may import: {{allowed}}.",
      denied: "{{layer}} may not import '{{spec}}': {{why}}.",
    },
  },
  create(context) {
    const layers = context.options[0]?.layers ?? {};
    const rel = path.relative(context.cwd, context.filename).split(path.sep).join('/');
    if (rel.startsWith('..') || path.isAbsolute(rel)) return {};
    const layer = layerOf(rel, layers);
    if (!layer || layer.allow.includes('*')) return {};
    const allowed = layer.allow.map((a) => PLURAL[a] ?? shown(a)).join(', ') || 'nothing';

    function check(node) {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const spec = node.value;
      const c = classify(spec, rel);
      let ok = layer.allow.some((a) => allows(a, c));
      if (ok && c.kind === '#package' && layer.denyPackages?.some((p) => c.pkg === p || (p.endsWith('/*') && c.pkg.startsWith(p.slice(0, -1))))) ok = false;
      if (ok && layer.deny?.some((d) => allows(d, c))) {
        context.report({ node, messageId: 'denied', data: { layer: shown(layer.name), spec, why: layer.denyWhy ?? 'denied to this layer' } });
        return;
      }
      if (!ok) {
        const what = c.kind.startsWith('#') ? DESCRIBE[c.kind] : `${shown(targetLayer(c.target, layer.allow, layers))} layer`;
        context.report({ node, messageId: 'forbidden', data: { layer: shown(layer.name), spec, what, allowed } });
      }
    }

    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
      TSImportType: (n) => {
        const a = 'source' in n ? n.source : n.argument; // `argument` is deprecated in typescript-eslint 8
        check(a?.type === 'TSLiteralType' ? a.literal : a);
      },
      TSExternalModuleReference: (n) => check(n.expression),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments.length === 1) check(n.arguments[0]);
      },
    };
  },
};
