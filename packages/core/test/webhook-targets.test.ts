/**
 * Where webhooks may go (issue 31, items 1 and 3): the operator, not an App, allows private
 * targets; every non-public range and every IPv4-in-IPv6 form is refused at registration and
 * again at delivery; and a delivery connects to the address it checked (no DNS rebinding).
 * Receivers are real local sockets.
 */
import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { memoryStorage } from '@latchkey/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Latchkey, type LatchkeyOptions, type Storage } from '../src/index.js';
import { isPublicAddress } from '../src/shared/public-host.js';
import { expectErrorShape, TEST_SECRET } from './helpers.js';
import { storageBackends } from './storage-backends.js';

/** A real HTTP receiver on a loopback address, keeping what it is sent. */
async function httpReceiver(host = '127.0.0.1') {
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A TCP listener that only counts connections: a private service that must never be reached. */
async function countingListener() {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** `[::1]` is not configured on every machine: the IPv6 receiver is then left out. */
const ipv6Receiver = () => httpReceiver('::1').catch(() => undefined);

function lk(
  storage: Storage,
  webhooks: LatchkeyOptions['webhooks'] = {},
  clock?: LatchkeyOptions['clock'],
): Latchkey {
  return createLatchkey({
    storage,
    secret: TEST_SECRET,
    webhooks: { timeoutMs: 1000, ...webhooks },
    ...(clock ? { clock } : {}),
  });
}

async function api(latchkey: Latchkey, key: string, method: string, path: string, body?: unknown) {
  const res = await latchkey.fetch(
    new Request(`http://latchkey.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const drain = async (latchkey: Latchkey) => {
  while ((await latchkey.webhooks.deliverDue()) > 0) {}
};

/** Each endpoint's attempts for one event: endpoint id → the attempts' error (or status). */
async function attempts(latchkey: Latchkey, key: string, eventType = 'user.created') {
  const events = (await api(latchkey, key, 'GET', `/v1/events?type=${eventType}`)).body.events;
  const out = new Map<string, Array<string | number | null>>();
  for (const e of events) {
    const detail = await api(latchkey, key, 'GET', `/v1/events/${e.id}`);
    for (const d of detail.body.deliveries)
      out.set(
        d.endpoint_id,
        d.attempt_log.map(
          (a: { error: string | null; status_code: number | null }) => a.error ?? a.status_code,
        ),
      );
  }
  return out;
}

/**
 * Writes the App setting of earlier versions into the stored settings document, as an App that
 * had allowed private targets left it: it must load, and change nothing.
 */
async function storeOldSetting(storage: Storage, appId: string) {
  const stored = (await storage.apps.get(appId))!;
  await storage.apps.update(appId, {
    settings: { ...stored.settings, webhooks: { allow_private_targets: true } } as typeof stored.settings,
    updated_at: stored.updated_at + 1,
  });
}

/** Standard Webhooks, checked by hand: HMAC-SHA256 of `id.timestamp.body` under the secret. */
function verifySignature(secret: string, r: { headers: Record<string, string>; body: string }) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
    .digest('base64');
  return r.headers['webhook-signature'] === `v1,${mac}`;
}

/**
 * Every range a webhook must not reach, by its first and last address, and the addresses just
 * outside it (public unless the neighbour is itself refused). `true`: refused.
 */
const TABLE: Array<[address: string, refused: boolean]> = [
  // 0.0.0.0/8 "this network"
  ['0.0.0.0', true],
  ['0.255.255.255', true],
  ['1.0.0.0', false],
  // 10.0.0.0/8
  ['9.255.255.255', false],
  ['10.0.0.0', true],
  ['10.255.255.255', true],
  ['11.0.0.0', false],
  // 100.64.0.0/10 carrier-grade NAT
  ['100.63.255.255', false],
  ['100.64.0.0', true],
  ['100.127.255.255', true],
  ['100.128.0.0', false],
  // 127.0.0.0/8 loopback
  ['126.255.255.255', false],
  ['127.0.0.0', true],
  ['127.0.0.1', true],
  ['127.255.255.255', true],
  ['128.0.0.0', false],
  // 169.254.0.0/16 link-local (cloud metadata)
  ['169.253.255.255', false],
  ['169.254.0.0', true],
  ['169.254.169.254', true],
  ['169.254.255.255', true],
  ['169.255.0.0', false],
  // 172.16.0.0/12
  ['172.15.255.255', false],
  ['172.16.0.0', true],
  ['172.31.0.0', true],
  ['172.31.255.255', true],
  ['172.32.0.0', false],
  // 192.0.0.0/24 IETF protocol assignments
  ['191.255.255.255', false],
  ['192.0.0.0', true],
  ['192.0.0.255', true],
  ['192.0.1.0', false],
  // 192.0.2.0/24 TEST-NET-1
  ['192.0.1.255', false],
  ['192.0.2.0', true],
  ['192.0.2.255', true],
  ['192.0.3.0', false],
  // 192.31.196.0/24 AS112
  ['192.31.195.255', false],
  ['192.31.196.0', true],
  ['192.31.196.255', true],
  ['192.31.197.0', false],
  // 192.52.193.0/24 AMT
  ['192.52.192.255', false],
  ['192.52.193.0', true],
  ['192.52.193.255', true],
  ['192.52.194.0', false],
  // 192.88.99.0/24 6to4 relay anycast
  ['192.88.98.255', false],
  ['192.88.99.0', true],
  ['192.88.99.255', true],
  ['192.88.100.0', false],
  // 192.168.0.0/16
  ['192.167.255.255', false],
  ['192.168.0.0', true],
  ['192.168.255.255', true],
  ['192.169.0.0', false],
  // 192.175.48.0/24 AS112
  ['192.175.47.255', false],
  ['192.175.48.0', true],
  ['192.175.48.255', true],
  ['192.175.49.0', false],
  // 198.18.0.0/15 benchmarking
  ['198.17.255.255', false],
  ['198.18.0.0', true],
  ['198.19.255.255', true],
  ['198.20.0.0', false],
  // 198.51.100.0/24 TEST-NET-2
  ['198.51.99.255', false],
  ['198.51.100.0', true],
  ['198.51.100.255', true],
  ['198.51.101.0', false],
  // 203.0.113.0/24 TEST-NET-3
  ['203.0.112.255', false],
  ['203.0.113.0', true],
  ['203.0.113.255', true],
  ['203.0.114.0', false],
  // 224.0.0.0/4 multicast, 240.0.0.0/4 reserved, broadcast
  ['223.255.255.255', false],
  ['224.0.0.0', true],
  ['239.255.255.255', true],
  ['240.0.0.0', true],
  ['255.255.255.254', true],
  ['255.255.255.255', true],
  // Public IPv4
  ['8.8.8.8', false],
  ['1.1.1.1', false],

  // IPv6 unspecified and loopback, in every spelling
  ['::', true],
  ['0:0:0:0:0:0:0:0', true],
  ['::1', true],
  ['0:0:0:0:0:0:0:1', true],
  ['0000:0000:0000:0000:0000:0000:0000:0001', true],
  // IPv4-compatible ::/96 (deprecated), dotted and hex
  ['::7f00:1', true],
  ['::127.0.0.1', true],
  ['::8.8.8.8', true],
  ['::ffff', true],
  // IPv4-mapped ::ffff:0:0/96, dotted and hex, private and public embedded
  ['::ffff:0.0.0.0', true],
  ['::ffff:127.0.0.1', true],
  ['::ffff:7f00:1', true],
  ['::ffff:a9fe:a9fe', true],
  ['::ffff:8.8.8.8', true],
  ['::ffff:255.255.255.255', true],
  ['0:0:0:0:0:ffff:7f00:1', true],
  // IPv4-translated ::ffff:0:0:0/96
  ['::ffff:0:7f00:1', true],
  // NAT64 64:ff9b::/96 and local-use 64:ff9b:1::/48
  ['64:ff9b::', true],
  ['64:ff9b::7f00:1', true],
  ['64:ff9b::127.0.0.1', true],
  ['64:ff9b::8.8.8.8', true],
  ['64:ff9b::ffff:ffff', true],
  ['64:ff9b:1::', true],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', true],
  // Discard 100::/64
  ['100::', true],
  ['100::ffff:ffff:ffff:ffff', true],
  // Outside Global Unicast 2000::/3, on both sides
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['2000::', false],
  ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['4000::', true],
  // 2001::/23 IETF protocol assignments, with Teredo 2001::/32 in it
  ['2001::', true],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['2001:200::', false],
  // 2001:db8::/32 documentation
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['2001:db8::', true],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['2001:db9::', false],
  // 2002::/16 6to4, with IPv4 inside
  ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['2002::', true],
  ['2002:7f00:1::1', true],
  ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['2003::', false],
  // 2620:4f:8000::/48 AS112
  ['2620:4f:7fff:ffff:ffff:ffff:ffff:ffff', false],
  ['2620:4f:8000::', true],
  ['2620:4f:8000:ffff:ffff:ffff:ffff:ffff', true],
  ['2620:4f:8001::', false],
  // 3fff::/20 documentation
  ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['3fff::', true],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['3fff:1000::', false],
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['fc00::', true],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['fe80::', true],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['fec0::', true],
  ['fec0::1', true],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['ff00::', true],
  ['ff02::1', true],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  // Public IPv6
  ['2606:4700:4700::1111', false],
  ['2a00:1450:4001:81c::200e', false],
];

const urlOf = (address: string, scheme = 'https', port = '') =>
  `${scheme}://${address.includes(':') ? `[${address}]` : address}${port ? `:${port}` : ''}/hook`;

describe('the address table', () => {
  it.each(TABLE)('%s is refused: %s', (address, refused) => {
    expect(isPublicAddress(address)).toBe(!refused);
  });

  it('refuses what is not an address, and an address with a zone', () => {
    for (const junk of ['', 'localhost', 'example.com', '1.2.3.4.5', '::g', 'fe80::1%eth0', '2606:4700::1%0'])
      expect(isPublicAddress(junk), junk).toBe(false);
  });

  it('refuses every refused row at registration as a literal, and accepts every public one', async () => {
    const latchkey = lk(memoryStorage());
    const app = await latchkey.apps.create({ name: 'Table' });
    for (const [address, refused] of TABLE) {
      const res = await api(latchkey, app.secret_key, 'POST', '/v1/webhooks/endpoints', {
        url: urlOf(address),
        event_types: ['user.created'],
      });
      if (refused) {
        expect(res.status, address).toBe(400);
        expect(expectErrorShape(res).error_type, address).toBe('webhook_url_not_allowed');
      } else expect(res.status, `${address}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it('refuses every refused row again at delivery, as a literal stored earlier and as what a name resolves to', async () => {
    const storage = memoryStorage();
    const refused = TABLE.filter(([, r]) => r).map(([a]) => a);
    const names = new Map(refused.map((a, i) => [`t${i}.targets.test`, a]));
    const lookup = async (host: string) => [{ address: names.get(host) ?? '8.8.8.8' }];
    const permissive = lk(storage, { allowPrivateTargets: true });
    const strict = lk(storage, { lookup });
    const app = await strict.apps.create({ name: 'Delivery table' });
    await storeOldSetting(storage, app.app_id);
    const expected = new Map<string, string>();
    for (const address of refused) {
      const literal = await permissive.webhooks.createEndpoint(app.app_id, {
        url: urlOf(address),
        event_types: ['user.created'],
      });
      expected.set(literal.endpoint_id, address);
    }
    for (const [name, address] of names) {
      // A name passes registration: it is checked when it is resolved.
      const named = await strict.webhooks.createEndpoint(app.app_id, {
        url: `https://${name}/hook`,
        event_types: ['user.created'],
      });
      expected.set(named.endpoint_id, `${name} -> ${address}`);
    }
    await strict.users.create(app.app_id, {});
    await drain(strict);
    const log = await attempts(strict, app.secret_key);
    expect(log.size).toBe(expected.size);
    for (const [endpointId, what] of expected)
      expect(log.get(endpointId), what).toEqual(['address_not_allowed']);
  });
});

describe('local names', () => {
  it.each([
    'https://localhost/hook',
    'https://localhost./hook',
    'https://LOCALHOST./hook',
    'https://api.localhost/hook',
    'https://api.localhost./hook',
    'http://localhost.:8080/hook',
    'https://127.0.0.1./hook',
    'https://0x7f.1/hook',
    'https://2130706433/hook',
    'https://0177.0.0.1/hook',
    'https://[0:0:0:0:0:0:0:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
  ])('%s is refused at registration', async (url) => {
    const latchkey = lk(memoryStorage());
    const app = await latchkey.apps.create({ name: 'Names' });
    const res = await api(latchkey, app.secret_key, 'POST', '/v1/webhooks/endpoints', {
      url,
      event_types: ['user.created'],
    });
    expect(expectErrorShape(res).error_type).toBe('webhook_url_not_allowed');
  });

  it('takes plain http only towards a local target, and only when the operator allows those', async () => {
    const strict = lk(memoryStorage());
    const permissive = lk(memoryStorage(), { allowPrivateTargets: true });
    for (const latchkey of [strict, permissive]) {
      const app = await latchkey.apps.create({ name: 'Schemes' });
      for (const url of ['http://hooks.example.com/x', 'http://8.8.8.8/x', 'ftp://localhost/x'])
        await expect(
          latchkey.webhooks.createEndpoint(app.app_id, { url, event_types: ['user.created'] }),
          url,
        ).rejects.toMatchObject({ errorType: 'invalid_webhook_url' });
    }
    const app = await permissive.apps.create({ name: 'Schemes' });
    for (const url of ['http://localhost:8080/x', 'http://[::1]/x', 'http://10.0.0.1/x'])
      expect(
        (await permissive.webhooks.createEndpoint(app.app_id, { url, event_types: ['user.created'] })).url,
      ).toBe(url);
  });

  it('still takes names that only look local', async () => {
    const latchkey = lk(memoryStorage());
    const app = await latchkey.apps.create({ name: 'Names' });
    for (const url of [
      'https://localhost.example.com/hook',
      'https://evillocalhost.com/hook',
      'https://evillocalhost/hook',
      'https://notlocalhost./hook',
      'https://127.0.0.1.example/x',
    ])
      expect(
        (await latchkey.webhooks.createEndpoint(app.app_id, { url, event_types: ['user.created'] })).url,
      ).toBe(url);
  });
});

describe('private targets are the operator’s decision', () => {
  let hook: Awaited<ReturnType<typeof httpReceiver>>;
  beforeAll(async () => {
    hook = await httpReceiver();
  });
  afterAll(() => hook.close());

  it('an App cannot allow them: the setting is refused with a 400 naming the operator option', async () => {
    const storage = memoryStorage();
    const latchkey = lk(storage);
    const app = await latchkey.apps.create({ name: 'Tenant' });
    const patch = await api(latchkey, app.secret_key, 'PATCH', '/v1/app/settings', {
      webhooks: { allow_private_targets: true },
    });
    expect(patch.status).toBe(400);
    const error = expectErrorShape(patch);
    expect(error.error_type).toBe('unknown_field');
    expect(error.error_field).toBe('webhooks.allow_private_targets');
    expect(error.error_message).toContain('webhooks.allowPrivateTargets');
    expect(error.error_message).toContain('LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS');
    // Nor by resetting or restating the block: each answer says where the switch went.
    for (const webhooks of [null, {}, { allow_private_targets: false }]) {
      const again = await api(latchkey, app.secret_key, 'PATCH', '/v1/app/settings', { webhooks });
      expect(again.status).toBe(400);
      expect(expectErrorShape(again).error_message).toContain('webhooks.allowPrivateTargets');
    }
    expect((await api(latchkey, app.secret_key, 'GET', '/v1/app')).body.settings).not.toHaveProperty(
      'webhooks',
    );

    for (const url of [
      `http://127.0.0.1:${hook.port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:5432/',
      `http://localhost:${hook.port}/hook`,
    ]) {
      const res = await api(latchkey, app.secret_key, 'POST', '/v1/webhooks/endpoints', {
        url,
        event_types: ['user.created'],
      });
      expect(res.status, url).toBe(400);
      expect(res.body.error_type, url).toBe('webhook_url_not_allowed');
      expect(res.body.error_message).toContain('webhooks.allowPrivateTargets');
    }
    await latchkey.users.create(app.app_id, {});
    await drain(latchkey);
    expect(hook.received).toHaveLength(0);
  });

  it('with the operator option on, a loopback endpoint is taken and receives a signed POST', async () => {
    const start = hook.received.length;
    const latchkey = lk(memoryStorage(), { allowPrivateTargets: true });
    const app = await latchkey.apps.create({ name: 'Dev' });
    const endpoint = await api(latchkey, app.secret_key, 'POST', '/v1/webhooks/endpoints', {
      url: `http://127.0.0.1:${hook.port}/hook`,
      event_types: ['user.created'],
    });
    expect(endpoint.status).toBe(200);
    const user = await latchkey.users.create(app.app_id, {});
    await drain(latchkey);
    const got = hook.received.slice(start);
    expect(got).toHaveLength(1);
    expect(verifySignature(endpoint.body.secret, got[0]!)).toBe(true);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: 'user.created', data: { user_id: user.user_id } });
    expect(got[0]!.headers['content-length']).toBe(String(Buffer.byteLength(got[0]!.body)));
  });
});

describe.each(storageBackends())(
  'endpoints stored while private targets were allowed, on $name',
  (backend) => {
    let h: { storage: Storage; dispose(): Promise<void> };
    let hook: Awaited<ReturnType<typeof httpReceiver>>;
    let hook6: Awaited<ReturnType<typeof httpReceiver>> | undefined;
    beforeAll(async () => {
      h = await backend.open();
      hook = await httpReceiver();
      hook6 = await ipv6Receiver();
    });
    afterAll(async () => {
      await hook?.close();
      await hook6?.close();
      await h?.dispose();
    });

    it('receive nothing once the operator option is off, the old App setting in storage notwithstanding', async () => {
      const strict = lk(h.storage);
      const permissive = lk(h.storage, { allowPrivateTargets: true });
      const app = await strict.apps.create({ name: 'Upgraded' });
      await storeOldSetting(h.storage, app.app_id);
      const urls = [
        `http://127.0.0.1:${hook.port}/hook`,
        // IPv6 literals, which delivery used to send without a look.
        `http://[::ffff:127.0.0.1]:${hook.port}/hook`,
        `http://[::ffff:7f00:1]:${hook.port}/mapped-hex`,
        ...(hook6 ? [`http://[::1]:${hook6.port}/hook`, `http://[0:0:0:0:0:0:0:1]:${hook6.port}/long`] : []),
      ];
      const ids: string[] = [];
      for (const url of urls)
        ids.push(
          (await permissive.webhooks.createEndpoint(app.app_id, { url, event_types: ['user.created'] }))
            .endpoint_id,
        );

      // The stored document still loads, and its old key does nothing.
      const view = await api(strict, app.secret_key, 'GET', '/v1/app');
      expect(view.status).toBe(200);
      await strict.users.create(app.app_id, {});
      await drain(strict);
      expect(hook.received).toHaveLength(0);
      expect(hook6?.received ?? []).toHaveLength(0);
      const log = await attempts(strict, app.secret_key);
      for (const id of ids) expect(log.get(id)).toEqual(['address_not_allowed']);

      // The operator turns it back on: the same endpoints receive the redelivered event, once
      // each endpoint's own pause after its failed attempt (a second or two) has passed.
      const [event] = (await api(strict, app.secret_key, 'GET', '/v1/events?type=user.created')).body.events;
      await api(strict, app.secret_key, 'POST', `/v1/events/${event.id}/redeliver`, {});
      const later = lk(h.storage, { allowPrivateTargets: true }, { now: () => Date.now() + 5000 });
      await drain(later);
      expect(hook.received.length + (hook6?.received.length ?? 0)).toBe(urls.length);
    });
  },
);

describe('DNS rebinding', () => {
  // Any public address: the connection to it fails (or times out), and nothing is listening
  // for this test there. What matters is that the socket goes where the check looked.
  const PUBLIC = '93.184.215.14';
  let privateService: Awaited<ReturnType<typeof countingListener>>;
  const realLookup = dns.lookup;
  let calls: string[] = [];
  let answers: Array<Array<{ address: string }>> = [];

  /** The name's DNS: each query gets the next answer (the last one repeats). */
  const rebinding = async (host: string) => {
    calls.push(host);
    return answers[Math.min(calls.length, answers.length) - 1]!;
  };

  beforeAll(async () => {
    privateService = await countingListener();
    // The process's own resolver follows the same script for this name, as a rebinding DNS
    // server would for anything that asks it, the global fetch included.
    (dns as { lookup: unknown }).lookup = (host: string, options: any, callback: any) => {
      const cb = typeof options === 'function' ? options : callback;
      const all = typeof options === 'object' && options?.all;
      if (!host.endsWith('.rebind.test')) return (realLookup as any)(host, options, callback);
      rebinding(host).then((list) => {
        const withFamily = list.map((a) => ({ address: a.address, family: a.address.includes(':') ? 6 : 4 }));
        if (all) cb(null, withFamily);
        else cb(null, withFamily[0]!.address, withFamily[0]!.family);
      }, cb);
    };
  });
  afterAll(async () => {
    (dns as { lookup: unknown }).lookup = realLookup;
    await privateService.close();
  });

  async function deliverTo(latchkey: Latchkey) {
    const app = await latchkey.apps.create({ name: 'Rebind' });
    const endpoint = await latchkey.webhooks.createEndpoint(app.app_id, {
      url: `https://hooks.rebind.test:${privateService.port}/hook`,
      event_types: ['user.created'],
    });
    calls = [];
    await latchkey.users.create(app.app_id, {});
    await drain(latchkey);
    return (await attempts(latchkey, app.secret_key)).get(endpoint.endpoint_id);
  }

  it('a name that answers a public address when checked and a private one when connected never reaches the private one', async () => {
    answers = [[{ address: PUBLIC }], [{ address: '127.0.0.1' }]];
    const before = privateService.connections();
    const log = await deliverTo(lk(memoryStorage(), { lookup: rebinding }));
    expect(privateService.connections() - before).toBe(0);
    // One answer, used for both the check and the connection.
    expect(calls).toEqual(['hooks.rebind.test']);
    expect(log).toHaveLength(1);
    expect(log![0]).not.toBe(200);
  });

  it('the unpinned way, check and then let fetch resolve again, does reach it (what deliveries did)', async () => {
    answers = [[{ address: PUBLIC }], [{ address: '127.0.0.1' }]];
    calls = [];
    const before = privateService.connections();
    const checked = await rebinding('hooks.rebind.test');
    expect(checked.every((a) => isPublicAddress(a.address))).toBe(true);
    await fetch(`https://hooks.rebind.test:${privateService.port}/hook`, { method: 'POST' }).catch(() => {});
    expect(calls).toHaveLength(2);
    expect(privateService.connections() - before).toBe(1);
  });

  it('a name whose answer mixes a public and a private address is refused whole', async () => {
    answers = [[{ address: PUBLIC }, { address: '127.0.0.1' }]];
    const before = privateService.connections();
    const log = await deliverTo(lk(memoryStorage(), { lookup: rebinding }));
    expect(log).toEqual(['address_not_allowed']);
    expect(privateService.connections() - before).toBe(0);
  });

  it('the name is resolved by the injected resolver and connected to what it answered (the control)', async () => {
    // With private targets allowed, the private answer is where the socket goes: the listener
    // counts it, so the tests above that count nothing are not counting the wrong thing.
    answers = [[{ address: '127.0.0.1' }]];
    const before = privateService.connections();
    const log = await deliverTo(lk(memoryStorage(), { lookup: rebinding, allowPrivateTargets: true }));
    expect(privateService.connections() - before).toBe(1);
    expect(log).toEqual(['connection_failed']); // the listener speaks no TLS
  });

  it('an answer in a form a socket could read otherwise is connected to nowhere, private targets allowed or not', async () => {
    for (const odd of ['127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1', '::127.0.0.1', '::1%lo']) {
      answers = [[{ address: odd }]];
      const before = privateService.connections();
      const log = await deliverTo(lk(memoryStorage(), { lookup: rebinding, allowPrivateTargets: true }));
      expect(privateService.connections() - before, odd).toBe(0);
      expect(log, odd).toEqual(['connection_failed']);
      const strict = await deliverTo(lk(memoryStorage(), { lookup: rebinding }));
      expect(strict, odd).toEqual(['address_not_allowed']);
    }
  });

  it('a resolver that never answers costs an attempt its timeout, not the worker, with either transport', async () => {
    const never = () => new Promise<Array<{ address: string }>>(() => {});
    const fetch = async () => new Response(null, { status: 204 });
    for (const webhooks of [{ lookup: never }, { lookup: never, fetch }]) {
      const started = Date.now();
      const latchkey = lk(memoryStorage(), { ...webhooks, timeoutMs: 200 });
      const app = await latchkey.apps.create({ name: 'Silent DNS' });
      const endpoint = await latchkey.webhooks.createEndpoint(app.app_id, {
        url: 'https://silent.rebind.test/hook',
        event_types: ['user.created'],
      });
      await latchkey.users.create(app.app_id, {});
      await drain(latchkey);
      expect((await attempts(latchkey, app.secret_key)).get(endpoint.endpoint_id)).toEqual(['timeout']);
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });

  it('with a custom fetch, the addresses are still checked before it is called', async () => {
    answers = [[{ address: '10.0.0.7' }]];
    let fetched = 0;
    const log = await deliverTo(
      lk(memoryStorage(), {
        lookup: rebinding,
        fetch: async () => {
          fetched++;
          return new Response(null, { status: 204 });
        },
      }),
    );
    expect(log).toEqual(['address_not_allowed']);
    expect(fetched).toBe(0);
  });
});
