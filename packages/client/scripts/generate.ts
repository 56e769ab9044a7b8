import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * Writes src/generated/openapi.ts from the server's own OpenAPI document, so the client's request
 * and response types are the server's. `--check` regenerates in memory and fails on a difference
 * (the build runs it, and test/generated.test.ts does too), so a route change that was not
 * regenerated cannot land.
 */
export const generatedPath = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

type Operation = { security?: Array<Record<string, string[]>> };

export async function renderClientTypes(): Promise<string> {
  const latchkey = createLatchkey({
    storage: memoryStorage(),
    secret: 'openapi-generation-only'.padEnd(40, '.'),
    sender: { send: async () => {} },
  });
  try {
    const doc = latchkey.openapi() as unknown as {
      paths: Record<string, Record<string, Operation>>;
    };
    const ast = await openapiTS(doc as never, { alphabetize: true });
    // Which routes take the public token, as the server's security requirements say: the browser
    // entry is typed to these alone.
    const publicRoutes = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => (op.security ?? []).some((s) => 'publicToken' in s))
          .map(([method]) => `'${method} ${path}'`),
      )
      .sort();
    return `${COMMENT_HEADER}${astToString(ast)}
/** Routes that accept the App's public token (\`method path\`), from the document's security requirements. */
export type PublicRoute =\n${publicRoutes.map((r) => `  | ${r}`).join('\n')};
`;
  } finally {
    await latchkey.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fresh = await renderClientTypes();
  if (process.argv.includes('--check')) {
    if (readFileSync(generatedPath, 'utf8') !== fresh) {
      console.error(`${generatedPath} is out of date: run \`npm run generate -w @latchkey/client\`.`);
      process.exit(1);
    }
    console.log('client types match the OpenAPI document');
  } else {
    writeFileSync(generatedPath, fresh);
    console.log(`wrote ${generatedPath}`);
  }
}
