/**
 * Folder cycles of @latchkey/core, type imports counted: `npm run lint` fails on an edge between
 * two folders of packages/core/src that sits in a cycle and is not in ALLOWED, and on an ALLOWED
 * edge that no longer does (remove it), so the list only shrinks. The module-level rule
 * (no-circular in .dependency-cruiser.cjs) passes while folders import each other both ways; a
 * folder cycle is what makes a capability cost edits in the shared layers.
 *
 * A node is a folder under src/, or a file at src/'s top (latchkey.ts, errors.ts…): the top
 * files are the wiring, and folding them into one node would put every folder in its cycle.
 *
 *   node scripts/folder-cycles.mjs          check (what lint runs)
 *   node scripts/folder-cycles.mjs --list   print the edges in cycles
 *   node scripts/folder-cycles.mjs --prune  drop the ALLOWED edges that are gone (adds none)
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder edges in cycles today. Remove an edge when it goes; never add one. */
export const ALLOWED = [
  'apps -> capability',
  'apps -> kernel',
  'apps -> messages',
  'apps -> oauth',
  'apps -> rate-limits',
  'balances -> capability',
  'balances -> kernel',
  'balances -> wallets',
  'capability -> events',
  'capability -> kernel',
  'capability -> options',
  'contacts -> kernel',
  'contacts -> users',
  'events -> capability',
  'events -> kernel',
  'events -> oauth',
  'events -> sessions',
  'events -> users',
  'events -> wallet-policies',
  'events -> wallet-transactions',
  'events -> wallets',
  'kernel -> apps',
  'kernel -> events',
  'magic-links -> capability',
  'magic-links -> contacts',
  'magic-links -> kernel',
  'magic-links -> messages',
  'magic-links -> rate-limits',
  'magic-links -> sessions',
  'magic-links -> sign-in',
  'messages -> contacts',
  'oauth -> capability',
  'oauth -> contacts',
  'oauth -> kernel',
  'oauth -> sessions',
  'oauth -> sign-in',
  'oauth -> users',
  'options -> balances',
  'options -> password-auth',
  'password-auth -> apps',
  'password-auth -> capability',
  'password-auth -> contacts',
  'password-auth -> kernel',
  'password-auth -> magic-links',
  'password-auth -> messages',
  'password-auth -> passwords',
  'password-auth -> rate-limits',
  'password-auth -> sessions',
  'password-auth -> sign-in',
  'password-auth -> users',
  'passwords -> capability',
  'passwords -> kernel',
  'passwords -> users',
  'rate-limits -> apps',
  'rate-limits -> kernel',
  'sessions -> apps',
  'sessions -> capability',
  'sessions -> events',
  'sessions -> kernel',
  'sign-in -> kernel',
  'sign-in -> sessions',
  'sign-in -> users',
  'totps -> capability',
  'totps -> kernel',
  'totps -> sessions',
  'totps -> sign-in',
  'totps -> users',
  'users -> capability',
  'users -> contacts',
  'users -> events',
  'users -> kernel',
  'users -> totps',
  'users -> wallets',
  'users -> webauthn',
  'wallet-policies -> apps',
  'wallet-policies -> capability',
  'wallet-policies -> events',
  'wallet-policies -> kernel',
  'wallet-transactions -> apps',
  'wallet-transactions -> capability',
  'wallet-transactions -> kernel',
  'wallet-transactions -> wallets',
  'wallets -> apps',
  'wallets -> capability',
  'wallets -> events',
  'wallets -> kernel',
  'wallets -> wallet-policies',
  'webauthn -> apps',
  'webauthn -> capability',
  'webauthn -> kernel',
  'webauthn -> sessions',
  'webauthn -> sign-in',
  'webauthn -> users',
];

const STRIP = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)/g;
const SPECIFIERS = [
  // import/export … from '…', `import type`, side-effect imports
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?'#(\d+)'/g,
  // import('…') in a type position
  /\bimport\(\s*'#(\d+)'\s*\)/g,
  // a module augmentation depends on the module it augments
  /\bdeclare\s+module\s+'#(\d+)'/g,
];

/**
 * Every relative specifier a TypeScript source names. Comments go, and each string literal
 * becomes a numbered placeholder first, so an import written inside a comment or a string
 * counts for nothing.
 */
export function specifiers(source) {
  const strings = [];
  const code = source.replace(STRIP, (_m, str) => {
    if (str === undefined) return '';
    strings.push(str.slice(1, -1));
    return `'#${strings.length - 1}'`;
  });
  return SPECIFIERS.flatMap((re) => [...code.matchAll(re)].map((m) => strings[Number(m[1])])).filter((s) =>
    s.startsWith('.'),
  );
}

/** The folder-to-folder edges of the tree under `root`, as a map from a node to those it imports. */
export function folderEdges(root) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(root);
  const node = (file) => {
    const parts = relative(root, file).split('/');
    return parts.length > 1 ? parts[0] : parts[0].replace(/\.tsx?$/, '');
  };
  const edges = new Map();
  for (const file of files) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (!relative(root, target) || relative(root, target).startsWith('..')) continue;
      const [from, to] = [node(file), node(target)];
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
    }
  }
  return edges;
}

/** The edges `from -> to` whose `to` reaches back to `from`, sorted. */
export function cycleEdges(edges) {
  const reaches = (start, goal) => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.pop();
      if (v === goal) return true;
      for (const w of edges.get(v) ?? []) {
        if (!seen.has(w)) {
          seen.add(w);
          queue.push(w);
        }
      }
    }
    return false;
  };
  const found = [];
  for (const [from, tos] of edges)
    for (const to of tos) if (reaches(to, from)) found.push(`${from} -> ${to}`);
  return found.sort();
}

/** What to fix: edges in a cycle that ALLOWED lacks, and ALLOWED edges that are gone. */
export function check(found, allowed = ALLOWED) {
  const allowedSet = new Set(allowed);
  const foundSet = new Set(found);
  return {
    added: found.filter((e) => !allowedSet.has(e)),
    gone: allowed.filter((e) => !foundSet.has(e)),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/core/src');
  const found = cycleEdges(folderEdges(root));
  if (process.argv.includes('--list')) {
    console.log(found.join('\n'));
    console.log(`${found.length} folder edges in cycles`);
  } else if (process.argv.includes('--prune')) {
    const { gone } = check(found);
    const script = fileURLToPath(import.meta.url);
    let text = readFileSync(script, 'utf8');
    for (const e of gone) text = text.replace(`  '${e}',\n`, '');
    writeFileSync(script, text);
    console.log(
      `folder-cycles: removed ${gone.length} edges from ALLOWED, ${ALLOWED.length - gone.length} left`,
    );
  } else {
    const { added, gone } = check(found);
    for (const e of added) console.error(`folder-cycles: new edge in a cycle: ${e} (packages/core/src)`);
    for (const e of gone)
      console.error(
        `folder-cycles: ${e} is no longer in a cycle: remove it from ALLOWED in scripts/folder-cycles.mjs`,
      );
    if (added.length + gone.length > 0) process.exit(1);
    console.log(`folder-cycles: ${found.length} folder edges in cycles, none new`);
  }
}
