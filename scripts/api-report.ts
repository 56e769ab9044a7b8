import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The public API of every published package, as text: each name its entry points export, with
 * its declared type, read by the TypeScript compiler from the sources. Committed as
 * `packages/<dir>/api-report.md`; packages/core/test/api-report.test.ts fails when the tree no
 * longer matches, so an export or signature change is a visible, reviewed diff.
 * `npm run api:report` rewrites the files.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType;

// A type named from another file prints as import("/abs/path").Name: the name alone is stable.
const IMPORT_QUALIFIER = /import\("[^"]*"\)\./g;

interface PackageEntry {
  dir: string;
  name: string;
  /** Export subpath ('.', './x') → source file. */
  entries: Array<[string, string]>;
}

/** Every package under packages/ that is not private, with the source file of each export. */
export function publishedPackages(root = ROOT): PackageEntry[] {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      const dir = join(root, 'packages', d.name);
      let pkg: { name: string; private?: boolean; exports?: Record<string, unknown> };
      try {
        pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        return [];
      }
      if (pkg.private) return [];
      const entries = Object.entries(pkg.exports ?? { '.': { source: './src/index.ts' } }).flatMap(
        ([subpath, target]) => {
          const source =
            typeof target === 'object' && target !== null
              ? (target as { source?: unknown }).source
              : undefined;
          return typeof source === 'string' && source.endsWith('.ts')
            ? [[subpath, join(dir, source)] as [string, string]]
            : [];
        },
      );
      return [{ dir, name: pkg.name, entries }];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The packages, those that use other workspace packages after them (by depth, then name). The
 * checker prints a union's members in the order it first met them, so the packages described
 * first fix the spelling of the shared types: a new package that builds on the others is
 * described last and leaves their reports as they were.
 */
function byDependencyDepth(packages: PackageEntry[]): PackageEntry[] {
  const deps = new Map(
    packages.map((p) => {
      const pkg = JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8'));
      const names = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
      return [p.name, names.filter((n) => packages.some((q) => q.name === n))] as const;
    }),
  );
  const depths = new Map<string, number>();
  const depth = (name: string, seen: string[] = []): number => {
    if (seen.includes(name)) throw new Error(`workspace dependency cycle: ${[...seen, name].join(' → ')}`);
    const known = depths.get(name);
    if (known !== undefined) return known;
    const d = Math.max(-1, ...(deps.get(name) ?? []).map((n) => depth(n, [...seen, name]))) + 1;
    depths.set(name, d);
    return d;
  };
  return [...packages].sort((a, b) => depth(a.name) - depth(b.name) || a.name.localeCompare(b.name));
}

/** The report of each published package, keyed by the report file's path. */
export function apiReports(root = ROOT): Map<string, string> {
  const packages = byDependencyDepth(publishedPackages(root));
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.base.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const files = packages.flatMap((p) => p.entries.map(([, file]) => file));
  const program = ts.createProgram(files, { ...config?.options, noEmit: true });
  const checker = program.getTypeChecker();
  const out = new Map<string, string>();
  for (const pkg of packages) {
    const sections = pkg.entries.map(([subpath, file]) => {
      const source = program.getSourceFile(file);
      const moduleSymbol = source && checker.getSymbolAtLocation(source);
      if (!moduleSymbol) throw new Error(`cannot read the exports of ${file}`);
      const lines = checker
        .getExportsOfModule(moduleSymbol)
        .map((s) => describe(checker, s).replace(IMPORT_QUALIFIER, ''))
        .sort((a, b) => a.localeCompare(b));
      const title = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
      return [`## ${title} (${relative(pkg.dir, file)})`, '', '```ts', ...lines, '```'].join('\n');
    });
    const text = [
      `# API report: ${pkg.name}`,
      '',
      'Generated by `npm run api:report` from the sources; checked by packages/core/test/api-report.test.ts.',
      'A change here is a change of the public API: review it, and record it in a changeset.',
      '',
      ...sections,
      '',
    ].join('\n');
    out.set(join(pkg.dir, 'api-report.md'), text);
  }
  return out;
}

/** One exported name, with what it is and its declared type (members spelled out for interfaces). */
function describe(checker: ts.TypeChecker, exported: ts.Symbol): string {
  const name = exported.getName();
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const decl = symbol.declarations?.[0];
  const parts: string[] = [];
  if (symbol.flags & ts.SymbolFlags.Class && decl) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
    const ctor = type
      .getConstructSignatures()
      .map((s) => `new ${checker.signatureToString(s, undefined, FLAGS)}`);
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    parts.push(`class ${name} { ${[...ctor, ...members(checker, instance, decl)].join('; ')} }`);
  } else if (
    symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum) &&
    decl
  ) {
    const kind = symbol.flags & ts.SymbolFlags.Function ? 'function' : 'const';
    parts.push(
      `${kind} ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, decl), decl, FLAGS)}`,
    );
  }
  if (symbol.flags & ts.SymbolFlags.Interface && decl) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    parts.push(`interface ${name} { ${members(checker, type, decl).join('; ')} }`);
  }
  if (symbol.flags & ts.SymbolFlags.TypeAlias && decl && ts.isTypeAliasDeclaration(decl)) {
    const type = checker.getTypeAtLocation(decl.type);
    parts.push(`type ${name} = ${checker.typeToString(type, decl, FLAGS | ts.TypeFormatFlags.InTypeAlias)}`);
  }
  if (parts.length === 0) parts.push(`${ts.SymbolFlags[symbol.flags] ?? symbol.flags} ${name}`);
  return parts.join('\n');
}

function members(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string[] {
  const props = checker.getPropertiesOfType(type).map((p) => {
    const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
    return `${p.getName()}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FLAGS)}`;
  });
  const calls = type.getCallSignatures().map((s) => checker.signatureToString(s, at, FLAGS));
  return [...calls, ...props];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [file, text] of apiReports()) {
    writeFileSync(file, text);
    console.log(`wrote ${relative(ROOT, file)}`);
  }
}
