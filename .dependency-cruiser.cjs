/**
 * Import rules, checked by `npm run lint` (docs/development.md). Paths are relative to the
 * repository root.
 */
const capability = '^packages/core/src/(?!http/|ports/|crypto/|shared/|vault/|messages/)([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes load order matter and modules impossible to take apart.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'routes-only-from-the-http-app',
      comment: "A capability's routes are mounted by http/app.ts alone; no other module reaches them.",
      severity: 'error',
      from: { pathNot: '^packages/core/src/http/app\\.ts$' },
      to: { path: `${capability}routes\\.ts$` },
    },
    {
      name: 'leaves-stay-leaves',
      comment:
        'Ports, crypto and shared kinds are what capabilities build on: they import no service or route.',
      severity: 'error',
      from: { path: '^packages/core/src/(ports|crypto|shared)/' },
      to: { path: '/(service|routes)\\.ts$' },
    },
    {
      name: 'adapters-use-the-public-api',
      comment: 'Adapters and examples import @latchkey/core, never a file inside it.',
      severity: 'error',
      from: { path: '^(packages/(?!core/)[^/]+|examples/[^/]+)/' },
      to: { path: '^packages/core/src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|\\.next|node_modules)/' },
    tsPreCompilationDeps: true,
  },
};
