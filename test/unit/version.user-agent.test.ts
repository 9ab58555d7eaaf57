import { TSADM_VERSION, USER_AGENT } from '../../src/version.js';

test('the User-Agent names tsadm, its version and the platform in Go\'s spelling', () => {
  expect(USER_AGENT).toMatch(/^tsadm\/v\S+ \(linux\/(amd64|arm64|386|arm|ppc64|s390x|riscv64)\)$/);
  expect(USER_AGENT.startsWith(`tsadm/v${TSADM_VERSION} (`)).toBe(true);
  if (process.arch === 'x64') expect(USER_AGENT).toContain('(linux/amd64)');
});
