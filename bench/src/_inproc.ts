import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';

const latchkey = createLatchkey({ storage: memoryStorage(), secret: 'x'.repeat(64) } as never);
const r0 = await latchkey.fetch(new Request('http://127.0.0.1/v1/health'));
console.log(r0.constructor.name, r0.status, [...r0.headers], await r0.text());
const N = 30000;
async function t(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 3000; i++) await fn();
  const s = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(name, (((performance.now() - s) * 1000) / N).toFixed(2), 'µs');
}
await t('fetch health', async () => {
  const r = await latchkey.fetch(
    new Request('http://127.0.0.1/v1/health', { headers: { host: '127.0.0.1', accept: '*/*' } }),
  );
  await r.text();
});
await t('fetch 404', async () => {
  const r = await latchkey.fetch(
    new Request('http://127.0.0.1/v1/nope', { headers: { host: '127.0.0.1', accept: '*/*' } }),
  );
  await r.text();
});
