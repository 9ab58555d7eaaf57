/** Expected values are Go's net.SplitHostPort results and error texts, as a Go program printed them. */
import { isValidPort, joinHostPort, splitHostPort } from '../../../src/net/host-port.js';

describe('splitHostPort: net.SplitHostPort', () => {
  test.each([
    ['a:1', 'a', '1'],
    ['[::1]:80', '::1', '80'],
    ['1.2.3.4:', '1.2.3.4', ''],
  ])('%s → host %s, port %s', (input, host, port) => {
    expect(splitHostPort(input)).toEqual({ host, port });
  });

  test.each([
    ['[::1]', 'address [::1]: missing port in address'],
    ['[::1]x:80', 'address [::1]x:80: missing port in address'],
    ['[::1]:80:90', 'address [::1]:80:90: too many colons in address'],
    ['::1', 'address ::1: too many colons in address'],
    ['a', 'address a: missing port in address'],
    ['a:b:c', 'address a:b:c: too many colons in address'],
    ['[a]b]:80', 'address [a]b]:80: missing port in address'],
    ['a[b:80', "address a[b:80: unexpected '[' in address"],
    [']a:80', "address ]a:80: unexpected ']' in address"],
    ['[::1]:[80', "address [::1]:[80: unexpected '[' in address"],
    ['[::1:80', "address [::1:80: missing ']' in address"],
  ])('%s fails: %s', (input, error) => {
    expect(splitHostPort(input)).toEqual({ error });
  });
});

describe('isValidPort: kubeadm ParsePort', () => {
  test.each([['1', true], ['65535', true], [6443, true], ['0', false], ['65536', false], ['', false], ['-1', false], ['8a', false]])('%j → %s', (port, valid) => {
    expect(isValidPort(port)).toBe(valid);
  });
});

/** Go's net.JoinHostPort (net/ipsock.go): brackets exactly when the host contains a colon. */
describe('joinHostPort: net.JoinHostPort', () => {
  test.each([
    ['10.0.0.1', 6443, '10.0.0.1:6443'],
    ['example.com', '443', 'example.com:443'],
    ['::1', 2379, '[::1]:2379'],
    ['fe80::1%eth0', '2380', '[fe80::1%eth0]:2380'],
    ['', 80, ':80'],
  ] as const)('%s and %s → %s', (host, port, joined) => {
    expect(joinHostPort(host, port)).toBe(joined);
  });
});
