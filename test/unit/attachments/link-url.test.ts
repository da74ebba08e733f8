import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LINK_URL_MAX_LENGTH, linkUrlProblem, type LinkUrlProblem } from '../../../lib/attachments/domain/link-url.ts';

const CODES: Array<LinkUrlProblem['code']> = ['not-https', 'credentials', 'ip-literal', 'private-host', 'invalid-url', 'too-long'];

describe('linkUrlProblem: the required cases', () => {
  it.each<{ url: string; code: LinkUrlProblem['code'] }>([
    { url: 'http://example.com/', code: 'not-https' },
    { url: 'https://169.254.169.254/', code: 'ip-literal' },
    { url: 'https://localhost/', code: 'private-host' },
    { url: 'https://[::1]/', code: 'ip-literal' },
    { url: 'https://10.0.0.1/', code: 'ip-literal' },
    { url: 'https://user:pw@host.example/', code: 'credentials' },
    { url: 'javascript:alert(1)', code: 'not-https' },
  ])('refuses $url as $code', ({ url, code }) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem?.code).toBe(code);
  });

  it.each(['https://example.com/datasheet.pdf?v=2#p3', 'https://sub.example.co.uk/a'])('accepts %s', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem).toBeUndefined();
  });
});

describe('linkUrlProblem', () => {
  it.each([
    'http://example.com/',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'ftp://example.com/file',
    'file:///etc/passwd',
    'wss://example.com/',
    'blob:https://example.com/x',
  ])('refuses the scheme of %s', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem?.code).toBe('not-https');
  });

  it('accepts an upper-case scheme and host, which the parser lower-cases', () => {
    // Act
    const problem = linkUrlProblem('HTTPS://EXAMPLE.COM/Datasheet.PDF');

    // Assess
    expect(problem).toBeUndefined();
  });

  it.each(['https://user@host.example/', 'https://:pw@host.example/', 'https://user:@host.example/', 'https://a%40b:c@host.example/'])(
    'refuses the credentials in %s',
    (url) => {
      // Act
      const problem = linkUrlProblem(url);

      // Assess
      expect(problem?.code).toBe('credentials');
    },
  );

  it.each([
    'https://127.0.0.1/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://127.1/',
    'https://0177.0.0.1/',
    'https://0x7f000001/',
    'https://0/',
    'https://127.0.0.1./',
    'https://8.8.8.8/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[fe80::1]/',
    'https://[2001:db8::1]:8443/',
    'https://1.1.1.1:443/path',
  ])('refuses the IP literal in %s', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem?.code).toBe('ip-literal');
  });

  it.each([
    'https://localhost/',
    'https://localhost./',
    'https://localhost../',
    'https://LOCALHOST:8443/',
    'https://api.localhost/',
    'https://printer.local/',
    'https://printer.local./',
    'https://db.internal/',
    'https://metadata.google.internal/',
    'https://box.localdomain/',
    'https://nas.home.arpa/',
    'https://home.arpa/',
    'https://intranet/',
    'https://intranet./',
    'https://%6c%6fcalhost/',
    'https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/',
    'https://./',
  ])('refuses the private host in %s', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem?.code).toBe('private-host');
  });

  it.each([
    'https://example.com./',
    'https://localhost.example.com/',
    'https://local.example/',
    'https://internal-docs.example.com/',
    'https://xn--mnchen-3ya.de/',
    'https://münchen.de/',
    'https://1e1.com/',
    'https://example.com:8443/a b',
  ])('accepts the public host in %s', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem).toBeUndefined();
  });

  it.each(['', 'example.com', '/relative/path', 'https://', 'https://exa mple.com/', 'https://1.2.3.4.5/', 'https://[::1/', 'https://a.0x7f/'])(
    'refuses %j as invalid',
    (url) => {
      // Act
      const problem = linkUrlProblem(url);

      // Assess
      expect(problem?.code).toBe('invalid-url');
    },
  );

  it.each([
    'https://exa\nmple.com/',
    'https://example.com/\t',
    ' https://example.com/',
    'https://example.com/ ',
    'https://example.com/\u0000',
    'java\nscript:alert(1)',
  ])('refuses %j, which the parser would silently rewrite', (url) => {
    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(problem?.code).toBe('invalid-url');
  });

  it('accepts exactly LINK_URL_MAX_LENGTH characters and refuses one more', () => {
    // Prepare
    const prefix = 'https://example.com/';
    const atLimit = prefix + 'a'.repeat(LINK_URL_MAX_LENGTH - prefix.length);

    // Act
    const atLimitProblem = linkUrlProblem(atLimit);
    const overLimitProblem = linkUrlProblem(`${atLimit}a`);

    // Assess
    expect(LINK_URL_MAX_LENGTH).toBe(2048);
    expect(atLimit).toHaveLength(2048);
    expect(atLimitProblem).toBeUndefined();
    expect(overLimitProblem?.code).toBe('too-long');
  });

  it('refuses a link whose normalized form grows past the limit', () => {
    // Prepare: each "ä" is percent-encoded to six characters by the parser
    const url = `https://example.com/${'ä'.repeat(400)}`;

    // Act
    const problem = linkUrlProblem(url);

    // Assess
    expect(url.length).toBeLessThan(LINK_URL_MAX_LENGTH);
    expect(problem?.code).toBe('too-long');
  });

  it('refuses a huge string as too long, without judging it otherwise', () => {
    // Act
    const problem = linkUrlProblem(`javascript:${'x'.repeat(100_000)}`);

    // Assess
    expect(problem?.code).toBe('too-long');
  });

  it('words every message as one English sentence', () => {
    // Prepare
    const urls = [
      'http://example.com/',
      'https://u:p@example.com/',
      'https://10.0.0.1/',
      'https://localhost/',
      'nope',
      `https://example.com/${'a'.repeat(3000)}`,
    ];

    // Act
    const problems = urls.map(linkUrlProblem);

    // Assess
    expect(problems.map((problem) => problem?.code)).toEqual(['not-https', 'credentials', 'ip-literal', 'private-host', 'invalid-url', 'too-long']);
    for (const problem of problems) expect(problem?.message).toMatch(/^The link [^.]*(\.[^ .][^.]*)*\.$/);
  });
});

describe('linkUrlProblem on arbitrary input', () => {
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 100 }).map((units) => String.fromCharCode(...units)),
    fc.string({ unit: fc.constantFrom(...'https:/@[]:.%0x7f\\?#\u0000\n \uff0e\u3002a-'), maxLength: 60 }).map((tail) => `https://${tail}`),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
  );

  it('never throws and answers undefined or a known problem', () => {
    fc.assert(
      fc.property(anyText, (url) => {
        // Act
        const problem = linkUrlProblem(url);

        // Assess
        if (problem !== undefined) {
          expect(CODES).toContain(problem.code);
          expect(problem.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every spelling of an IPv4 or IPv6 address as ip-literal', () => {
    const address = fc.oneof(
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.integer({ min: 0, max: 0xffffffff }).map(String),
      fc.ipV6().map((ip) => `[${ip}]`),
    );
    fc.assert(
      fc.property(address, fc.boolean(), (host, trailingDot) => {
        // Act
        const problem = linkUrlProblem(`https://${host}${trailingDot && !host.startsWith('[') ? '.' : ''}/x`);

        // Assess
        expect(problem?.code).toBe('ip-literal');
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts any https link on a public multi-label name', () => {
    // At most one single hyphen per label: `xn--` starts a punycode label, which the parser validates.
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,5})?$/);
    const publicName = fc
      .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'de', 'co.uk', 'io', 'example'))
      .map(([labels, tld]) => [...labels, tld].join('.'));
    const path = fc.webPath();
    fc.assert(
      fc.property(publicName, path, (host, rest) => {
        // Act
        const problem = linkUrlProblem(`https://${host}${rest}`);

        // Assess
        expect(problem).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });
});
