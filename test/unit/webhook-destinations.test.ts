import { webhookDestinations } from '#adapters/webhook-destinations';

/** Webhook URLs refused at creation: the address rules of image_url (url-rules.ts), https only. */
const deployed = webhookDestinations({ allowLoopback: false });
const local = webhookDestinations({ allowLoopback: true });
const NOT_PUBLIC = /^must be a public https URL: .+ is not a public address/;

// Every address the attack run registered (issue 17, C and 6), and their neighbours.
const PRIVATE_OR_METADATA = [
  'https://169.254.169.254/latest/meta-data/',
  'https://10.0.0.1/hooks',
  'https://192.168.1.1/hooks',
  'https://172.16.0.1/hooks',
  'https://0.0.0.0/hooks',
  'https://[fd00::1]/hooks',
  'https://[fe80::1]/hooks',
  'https://224.0.0.1/hooks',
  'https://[ff02::1]/hooks',
  'https://100.64.0.1/hooks',
  'https://[::ffff:10.0.0.1]/hooks',
  'https://[::ffff:169.254.169.254]/hooks',
  'https://2852039166/hooks', // 169.254.169.254 as one number
];
const LOOPBACK = [
  'https://[::ffff:127.0.0.1]/hooks',
  'https://localhost./hooks',
  'https://localhost/hooks',
  'https://hooks.localhost/hooks',
  'https://127.0.0.1/hooks',
  'https://127.1.2.3/hooks',
  'https://[::1]/hooks',
  'http://0x7f.1/hooks',
];

it.each(PRIVATE_OR_METADATA)('refuses %s, on the local stack too', (url) => {
  expect(deployed.whyRefused(url)).toMatch(NOT_PUBLIC);
  expect(local.whyRefused(url)).toMatch(NOT_PUBLIC);
});

it.each(LOOPBACK)('refuses loopback %s unless the local stack allows loopback', (url) => {
  expect(deployed.whyRefused(url)).toMatch(NOT_PUBLIC);
  expect(local.whyRefused(url)).toBeUndefined();
});

it('names the host, never what it resolves to', () => {
  expect(deployed.whyRefused('https://[::ffff:127.0.0.1]/x')).toContain('[::ffff:7f00:1]');
  expect(deployed.whyRefused('https://169.254.169.254/x')).toContain('169.254.169.254 is not a public address');
});

it.each([
  ['http://example.com/hooks', 'must be an https URL'],
  ['ftp://example.com/hooks', 'must be an https URL'],
  ['https://user:pw@example.com/hooks', 'must not contain credentials'],
  ['not a url', 'must be an absolute https URL'],
])('refuses %s: %s', (url, reason) => {
  expect(deployed.whyRefused(url)).toBe(reason);
  expect(local.whyRefused(url)).toBe(reason);
});

it.each(['https://example.com/hooks', 'https://93.184.215.14:8443/hooks', 'https://[2606:4700::1111]/hooks', 'https://hooks.internal.example/x'])(
  'accepts the public %s (hostnames are judged by their addresses at delivery)',
  (url) => {
    expect(deployed.whyRefused(url)).toBeUndefined();
  },
);
