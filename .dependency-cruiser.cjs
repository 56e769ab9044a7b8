/**
 * Import rules, checked by `npm run lint` (docs/development.md). Paths are relative to the
 * repository root.
 */
const capability =
  '^packages/core/src/(?!http/|ports/|crypto/|shared/|vault/|messages/|contacts/|chains/|sign-in/|rate-limits/|host-sessions/|logging/|telemetry/|node-http/)([^/]+)/';

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
      name: 'routes-only-from-their-capability',
      comment:
        "A capability's routes are mounted through its descriptor (capability.ts) alone; no other module reaches them.",
      severity: 'error',
      from: { pathNot: '^packages/core/src/[^/]+/capability\\.ts$' },
      to: { path: `${capability}routes\\.ts$` },
    },
    {
      name: 'descriptors-mount-their-own-routes',
      comment: "A capability's descriptor mounts its own folder's routes, never another's.",
      severity: 'error',
      from: { path: '^packages/core/src/([^/]+)/capability\\.ts$' },
      to: { path: `${capability}routes\\.ts$`, pathNot: '^packages/core/src/$1/routes\\.ts$' },
    },
    {
      name: 'descriptors-reach-others-by-descriptor',
      comment: "A capability names what it needs from another by that one's descriptor, never its internals.",
      severity: 'error',
      from: { path: '^packages/core/src/([^/]+)/capability\\.ts$' },
      to: {
        path: capability,
        pathNot: ['^packages/core/src/$1/', '^packages/core/src/[^/]+/capability\\.ts$'],
      },
    },
    {
      name: 'capabilities-meet-at-their-surface',
      comment:
        "A capability reaches another only through its surface: the descriptor, the record types (repo.ts), the schemas and the service's type. What two capabilities share lives in shared/, contacts/ or chains/.",
      severity: 'error',
      from: { path: capability },
      to: {
        path: capability,
        pathNot: [
          '^packages/core/src/$1/',
          '^packages/core/src/[^/]+/(capability|repo|schema|service)\\.ts$',
        ],
      },
    },
    {
      name: 'leaves-stay-leaves',
      comment:
        'Ports, crypto and shared kinds are what capabilities build on: they import no service, route or descriptor.',
      severity: 'error',
      from: { path: '^packages/core/src/(ports|crypto|shared|contacts|chains)/' },
      to: { path: '/(service|routes|capability)\\.ts$' },
    },
    {
      name: 'shared-layers-name-no-capability',
      comment:
        'The layers every capability builds on import none, nor the list or the wiring: a capability adds its repos, request variables and routes from its own folder (module augmentation, its descriptor), and latchkey.ts hands the list to the HTTP app.',
      severity: 'error',
      from: { path: '^packages/core/src/(http|ports|crypto|shared|chains)/' },
      to: {
        path: [capability, '^packages/core/src/(capabilities|capability|kernel|latchkey)\\.ts$'],
      },
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
