/**
 * SystemVerification's validators on probe facts. Expected values: system-validators' own test
 * table (isCgroupsV1DisabledInKubelet) and messages kubeadm printed (a 1.35 init on a 5.14
 * kernel; "unexpected kernel config: CONFIG_CPUSETS" from a kubeadm 1.12 init; "missing optional
 * cgroups: blkio" from kubernetes/system-validators#31).
 */
import type { SystemProbe } from '../../../../src/host/system-probe.js';
import { CGROUP_V1_MAINTENANCE, CGROUP_V1_UNSUPPORTED, cgroupV1DisabledInKubelet, verifySystem } from '../../../../src/phases/preflight/system-verification.js';

const CONFIG = ['NAMESPACES', 'NET_NS', 'PID_NS', 'IPC_NS', 'UTS_NS', 'CPUSETS', 'MEMCG', 'INET', 'EXT4_FS', 'PROC_FS', 'IP_NF_TARGET_REDIRECT',
  'NETFILTER_XT_MATCH_COMMENT', 'FAIR_GROUP_SCHED', 'CGROUPS', 'CGROUP_CPUACCT', 'CGROUP_DEVICE', 'CGROUP_FREEZER', 'CGROUP_PIDS', 'CGROUP_SCHED', 'CGROUP_BPF'];

function probe(o: { release?: string; fs?: string | undefined; config?: string[] | { error: string }; controllers?: string; procCgroups?: string } = {}): SystemProbe {
  const config = o.config ?? CONFIG;
  const files: Record<string, string> = {
    '/sys/fs/cgroup/cgroup.controllers': o.controllers ?? 'cpuset cpu io memory hugetlb pids rdma misc\n',
    '/proc/cgroups': o.procCgroups ?? '#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t1\t1\ncpu\t1\t1\t1\ncpuacct\t2\t1\t1\nblkio\t7\t1\t1\nmemory\t4\t50\t1\ndevices\t5\t1\t1\nfreezer\t6\t1\t1\nhugetlb\t0\t1\t1\npids\t8\t1\t1\n',
  };
  return {
    kernelRelease: () => o.release ?? '6.1.0-13-amd64',
    cgroupFsType: () => Promise.resolve('fs' in o ? o.fs : 'cgroup2fs'),
    kernelConfig: () => Promise.resolve(Array.isArray(config) ? { text: `# comment\n${config.map((c) => `CONFIG_${c}=y`).join('\n')}\n` } : config),
    readProc: (p: string) => Promise.resolve(files[p]),
  } as Partial<SystemProbe> as SystemProbe;
}

describe('verifySystem', () => {
  test('a healthy cgroup v2 host passes', async () => {
    expect(await verifySystem(probe(), 'Linux', '1.37.0')).toEqual({ warnings: [], errors: [] });
  });

  test('an unsupported kernel release is a warning with the supported versions', async () => {
    const r = await verifySystem(probe({ release: '5.14.0-665.el9.x86_64' }), 'Linux', '1.35.0');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual(['kernel release 5.14.0-665.el9.x86_64 is unsupported. Supported LTS versions from the 5.x series are 5.4, 5.10 and 5.15. Any 6.x version is also supported. For cgroups v2 support, the recommended version is 5.10 or newer']);
    for (const release of ['5.4.0-150-generic', '5.10.0-28-amd64', '5.15.0-91-generic', '6.18.44-fc-v669', '10.0.1']) {
      expect((await verifySystem(probe({ release }), 'Linux', '1.35.0')).warnings).toEqual([]);
    }
  });

  test('a required kernel option that is missing or disabled is an error; an unreadable configuration a warning', async () => {
    const r = await verifySystem(probe({ config: CONFIG.filter((c) => c !== 'CPUSETS') }), 'Linux', '1.35.0');
    expect(r.errors).toEqual(['unexpected kernel config: CONFIG_CPUSETS']);
    const off = await verifySystem(probe({ config: [...CONFIG.filter((c) => c !== 'MEMCG'), 'MEMCG_OFF'] }), 'Linux', '1.35.0');
    expect(off.errors).toEqual(['unexpected kernel config: CONFIG_MEMCG']);
    // cgroup v2 needs CGROUP_BPF, cgroup v1 does not.
    expect((await verifySystem(probe({ config: CONFIG.filter((c) => c !== 'CGROUP_BPF') }), 'Linux', '1.35.0')).errors).toEqual(['unexpected kernel config: CONFIG_CGROUP_BPF']);
    expect((await verifySystem(probe({ fs: 'tmpfs', config: CONFIG.filter((c) => c !== 'CGROUP_BPF') }), 'Linux', '1.30.0')).errors).toEqual([]);
    const unreadable = await verifySystem(probe({ config: { error: 'no config path in [/proc/config.gz] is available' } }), 'Linux', '1.35.0');
    expect(unreadable).toEqual({ warnings: ['failed to parse kernel config: no config path in [/proc/config.gz] is available'], errors: [] });
  });

  test('cgroup controllers: a missing required one is an error, a missing optional one a warning', async () => {
    expect(await verifySystem(probe({ controllers: 'cpuset cpu memory pids' }), 'Linux', '1.35.0')).toEqual({ warnings: ['missing optional cgroups: hugetlb io'], errors: [] });
    expect((await verifySystem(probe({ controllers: 'cpu memory pids io hugetlb' }), 'Linux', '1.35.0')).errors).toEqual(['missing required cgroups: cpuset']);
    const v1NoBlkio = '#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t1\t1\ncpu\t1\t1\t1\ncpuacct\t2\t1\t1\nmemory\t4\t50\t1\ndevices\t5\t1\t1\nfreezer\t6\t1\t1\nhugetlb\t0\t1\t1\npids\t8\t1\t1\nblkio\t7\t1\t0\n';
    expect((await verifySystem(probe({ fs: 'tmpfs', procCgroups: v1NoBlkio }), 'Linux', '1.20.2')).warnings).toEqual(['missing optional cgroups: blkio']);
  });

  test('cgroup v1: an error for kubelet 1.35 and newer, the maintenance warning for 1.31 to 1.34, nothing before', async () => {
    expect((await verifySystem(probe({ fs: 'tmpfs' }), 'Linux', '1.35.0')).errors).toEqual([CGROUP_V1_UNSUPPORTED]);
    expect(CGROUP_V1_UNSUPPORTED).toContain("you must set the kubelet configuration option 'FailCgroupV1' to 'false'. You must also explicitly skip this validation.");
    expect(await verifySystem(probe({ fs: 'tmpfs' }), 'Linux', '1.34.7')).toEqual({ warnings: [CGROUP_V1_MAINTENANCE], errors: [] });
    expect(await verifySystem(probe({ fs: 'tmpfs' }), 'Linux', '1.20.2')).toEqual({ warnings: [], errors: [] });
  });

  test('not Linux, or no cgroup filesystem, is an error', async () => {
    expect((await verifySystem(probe(), 'Darwin', '1.35.0')).errors).toEqual(['unsupported operating system: Darwin']);
    expect((await verifySystem(probe({ fs: undefined }), 'Linux', '1.35.0')).errors).toEqual(['cannot statfs the cgroupv2 root: no such file or directory']);
  });
});

describe('cgroupV1DisabledInKubelet (system-validators\' isCgroupsV1DisabledInKubelet table)', () => {
  test.each([
    ['', false],
    ['1.34.7', false],
    ['1.35.0-alpha.1', true],
    ['1.35.1', true],
    ['v1.37.0', true],
  ])('%s → %s', (version, disabled) => {
    expect(cgroupV1DisabledInKubelet(version)).toBe(disabled);
  });
});
