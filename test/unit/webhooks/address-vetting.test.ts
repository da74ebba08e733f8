import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, nonPublicReason, refusedAddressReason, vetWebhookUrl } from '../../../lib/webhooks/domain/address-vetting.ts';
import { WebhookCommands } from '../../../lib/webhooks/domain/commands.ts';
import { ValidationError } from '../../../lib/platform/core/errors.ts';

describe('isPublicAddress: refused IPv4 ranges', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.1.2', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('isPublicAddress: refused IPv6 ranges and IPv4-carrying forms', () => {
  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['ff0e::101', 'multicast'],
    ['100::1', 'discard-only'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['::ffff:0:8.8.8.8', 'IPv4-translated'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::ffff:127.0.0.1', 'IPv4-mapped form of 127.0.0.1 (loopback)'],
    ['::ffff:7f00:1', 'IPv4-mapped form of 127.0.0.1 (loopback)'],
    ['::ffff:169.254.169.254', 'IPv4-mapped form of 169.254.169.254 (cloud metadata)'],
    ['::ffff:10.1.2.3', 'IPv4-mapped form of 10.1.2.3 (private)'],
    ['64:ff9b::10.0.0.1', 'NAT64 form of 10.0.0.1 (private)'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 form of 169.254.169.254 (cloud metadata)'],
    ['2002:c0a8:0101::1', '6to4 form of 192.168.1.1 (private)'],
    ['2002:7f00:1::', '6to4 form of 127.0.0.1 (loopback)'],
  ])('%s is %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('isPublicAddress: spellings a URL parser normalises', () => {
  it.each([
    ['2130706433', 'loopback'], // 127.0.0.1 as one decimal number
    ['0x7f.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['017700000001', 'loopback'], // octal
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['0xa9.0xfe.0xa9.0xfe', 'cloud metadata'],
    ['2852039166', 'cloud metadata'],
    ['012.1', 'private'],
    ['0', 'unspecified'],
  ])('%s is %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['example.com', 'x@8.8.8.8', '8.8.8.8/x', 'fe80::1%eth0', '', '1.2.3.4.5', '[8.8.8.8]', '::ffff:1.2.3.4.5'])(
    'refuses %j, which is not an IP address',
    (text) => {
      expect(isPublicAddress(text)).toBe(false);
    },
  );
});

describe('isPublicAddress: public addresses', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below carrier-grade NAT
    '100.128.0.0', // just above it
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.254',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81c::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:4860:4860::8888',
  ])('%s is public', (address) => {
    expect(nonPublicReason(address)).toBeNull();
    expect(isPublicAddress(address)).toBe(true);
  });

  it('judges an IPv4 address and its mapped and NAT64 forms alike', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const verdict = isPublicAddress(address);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(verdict);
        expect(isPublicAddress(`64:ff9b::${address}`)).toBe(verdict);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.ipV6(), fc.ipV4Extended()), (text) => {
        expect(typeof isPublicAddress(text)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('vetWebhookUrl', () => {
  const production = { allowLoopback: false };
  const development = { allowLoopback: true };

  it('accepts an https URL on a public host name and returns it parsed', () => {
    // Act
    const vetted = vetWebhookUrl('https://hooks.example.com/inventory?x=1', production);

    // Assess
    expect(vetted).toEqual({ ok: true, url: new URL('https://hooks.example.com/inventory?x=1') });
  });

  it.each([
    ['http://hooks.example.com/', 'not-https'],
    ['ftp://hooks.example.com/', 'not-https'],
    ['https://user:pw@hooks.example.com/', 'credentials'],
    ['https://token@hooks.example.com/', 'credentials'],
    ['https://8.8.8.8/', 'ip-literal'],
    ['https://127.0.0.1/', 'ip-literal'],
    ['https://2130706433/', 'ip-literal'],
    ['https://0x7f.1/', 'ip-literal'],
    ['https://[::1]/', 'ip-literal'],
    ['https://[::ffff:127.0.0.1]/', 'ip-literal'],
    ['https://[2606:4700::1111]/', 'ip-literal'],
    ['https://localhost/', 'private-host'],
    ['https://api.localhost/', 'private-host'],
    ['https://printer.local/', 'private-host'],
    ['https://metadata.google.internal/', 'private-host'],
    ['https://intranet/', 'private-host'],
    ['https://localhost./', 'private-host'],
    ['https://%6c%6fcalhost/', 'private-host'],
    ['/relative/path', 'invalid-url'],
    ['https://hooks.example.com/\n', 'invalid-url'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'too-long'],
  ])('refuses %s (%s)', (url, code) => {
    // Act
    const vetted = vetWebhookUrl(url, production);

    // Assess
    expect(vetted).toMatchObject({ ok: false, code, message: expect.stringMatching(/^The endpoint URL /) });
  });

  it.each(['http://127.0.0.1:4242/hook', 'http://[::1]:4242/hook', 'http://127.1:4242/'])('admits the loopback URL %s only for local development', (url) => {
    expect(vetWebhookUrl(url, development).ok).toBe(true);
    expect(vetWebhookUrl(url, production).ok).toBe(false);
  });

  it.each([
    ['https://127.0.0.1:8443/', 'ip-literal'],
    ['https://[::1]/a', 'ip-literal'],
    ['http://127.0.0.1/', 'not-https'],
    ['http://localhost:4242/', 'not-https'],
    ['https://localhost:4242/', 'private-host'],
    ['http://127.0.0.2:4242/', 'not-https'],
    ['http://10.0.0.1:4242/', 'not-https'],
    ['https://10.0.0.1/', 'ip-literal'],
    ['https://169.254.169.254/', 'ip-literal'],
    ['http://[::ffff:127.0.0.1]:4242/', 'not-https'],
    ['http://hooks.example.com/', 'not-https'],
    ['http://user:pw@127.0.0.1:4242/', 'credentials'],
  ])('still refuses %s in local development (%s)', (url, code) => {
    expect(vetWebhookUrl(url, development)).toMatchObject({ ok: false, code });
  });
});

describe('port 0', () => {
  it.each([
    ['https://hooks.example.com:0/hook', { allowLoopback: false }],
    ['https://hooks.example.com:000/hook', { allowLoopback: false }],
    ['http://127.0.0.1:0/hook', { allowLoopback: true }],
    ['http://[::1]:0/hook', { allowLoopback: true }],
  ])('refuses %s as an invalid URL', (url, options) => {
    expect(vetWebhookUrl(url, options)).toMatchObject({ ok: false, code: 'invalid-url', message: expect.stringMatching(/^The endpoint URL .*port 0/) });
  });

  it('is a 400 naming /url when an endpoint is registered or replaced', async () => {
    const unused = () => Promise.reject(new Error('not reached'));
    const commands = new WebhookCommands({
      endpoints: {
        get: unused,
        all: unused,
        page: unused,
        createWrites: () => [],
        replaceWrites: () => [],
        deleteWrites: () => [],
        markFailing: unused,
        clearFailing: unused,
        disable: unused,
      },
      replays: { createWrites: () => [], get: unused, advance: unused, postpone: unused },
      events: { find: unused, lastSequence: () => Promise.resolve(0) },
      secrets: { seal: (secret) => Promise.resolve(secret), open: (sealed) => Promise.resolve(sealed) },
      allowLoopback: false,
    });
    const refusal = await commands.create('org_1', { url: 'https://hooks.example.com:0/hook' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect(refusal).toMatchObject({
      status: 400,
      code: 'customer-api.validation.failed',
      errors: [{ location: 'body', pointer: '/url', code: 'invalid-url' }],
    });
  });
});

describe('refusedAddressReason', () => {
  it('admits public addresses, and 127.0.0.1 and ::1 only with allowLoopback', () => {
    expect(refusedAddressReason('8.8.8.8', { allowLoopback: false })).toBeNull();
    expect(refusedAddressReason('127.0.0.1', { allowLoopback: false })).toBe('loopback');
    expect(refusedAddressReason('::1', { allowLoopback: false })).toBe('loopback');
    expect(refusedAddressReason('127.0.0.1', { allowLoopback: true })).toBeNull();
    expect(refusedAddressReason('0:0:0:0:0:0:0:1', { allowLoopback: true })).toBeNull();
  });

  it.each([
    ['127.0.0.2', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped form of 127.0.0.1 (loopback)'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['localhost', 'not an IP address'],
  ])('refuses %s even with allowLoopback (%s)', (address, reason) => {
    expect(refusedAddressReason(address, { allowLoopback: true })).toBe(reason);
  });
});
