import { imagePullCheck, pullImages, PULL_ATTEMPTS, type ImageRuntime } from '../../../../src/phases/preflight/image-pull.js';

/**
 * A runtime that records calls: the pull plan is pure logic over the runtime seam (the real CRI
 * client is exercised against containerd in test/e2e/images.e2e.test.ts).
 */
function recordingRuntime(present: string[], failing: Record<string, string> = {}, pullMs = 0) {
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const rt: ImageRuntime & { close(): void } = {
    imageExists: (image) => { calls.push(`exists ${image}`); return Promise.resolve(present.includes(image)); },
    pullImage: async (image) => {
      calls.push(`pull ${image}`);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, pullMs));
      inFlight--;
      if (failing[image] !== undefined) throw new Error(failing[image]);
      present.push(image);
    },
    close: () => calls.push('close'),
  };
  return { rt, calls, maxInFlight: () => maxInFlight };
}

const IMAGES = ['r/a:1', 'r/b:1', 'r/c:1'];

describe('pullImages (kubeadm ImagePullCheck)', () => {
  test('IfNotPresent pulls only what the runtime lacks, serially in list order', async () => {
    const { rt, calls, maxInFlight } = recordingRuntime(['r/b:1'], {}, 5);
    const out = await pullImages(rt, IMAGES, { policy: 'IfNotPresent', serial: true });
    expect(calls).toEqual(['exists r/a:1', 'pull r/a:1', 'exists r/b:1', 'exists r/c:1', 'pull r/c:1']);
    expect(out).toEqual({ pulled: ['r/a:1', 'r/c:1'], present: ['r/b:1'], errors: [] });
    expect(maxInFlight()).toBe(1);
  });

  test('Always pulls every image without asking', async () => {
    const { rt, calls } = recordingRuntime(['r/b:1']);
    await pullImages(rt, IMAGES, { policy: 'Always', serial: true });
    expect(calls).toEqual(['pull r/a:1', 'pull r/b:1', 'pull r/c:1']);
  });

  test('Never neither checks nor pulls', async () => {
    const { rt, calls } = recordingRuntime([]);
    expect(await pullImages(rt, IMAGES, { policy: 'Never', serial: true })).toEqual({ pulled: [], present: [], errors: [] });
    expect(calls).toEqual([]);
  });

  test('imagePullSerial false pulls at once; errors are reported in list order', async () => {
    const { rt, maxInFlight } = recordingRuntime([], { 'r/a:1': 'not found', 'r/c:1': 'denied' }, 20);
    const out = await pullImages(rt, IMAGES, { policy: 'Always', serial: false });
    expect(maxInFlight()).toBe(3);
    expect(out.errors).toEqual(['failed to pull image r/a:1: not found', 'failed to pull image r/c:1: denied']);
    expect(out.pulled).toEqual(['r/b:1']);
  });

  test('a failing pull is tried PullImageRetry (5) times and does not stop the others', async () => {
    const { rt, calls } = recordingRuntime([], { 'r/a:1': 'boom' });
    const out = await pullImages(rt, IMAGES, { policy: 'Always', serial: true });
    expect(calls.filter((c) => c === 'pull r/a:1')).toHaveLength(PULL_ATTEMPTS);
    expect(PULL_ATTEMPTS).toBe(5);
    expect(out.pulled).toEqual(['r/b:1', 'r/c:1']);
  });

  test('the ImagePull check: errors per image, connection closed; Never does not connect', async () => {
    const { rt, calls } = recordingRuntime([], { 'r/b:1': 'rpc error: code = NotFound desc = no such image' });
    const res = await imagePullCheck(() => Promise.resolve(rt), IMAGES, { policy: 'IfNotPresent', serial: true }).run({} as never);
    expect(res.errors).toEqual(['failed to pull image r/b:1: rpc error: code = NotFound desc = no such image']);
    expect(calls.at(-1)).toBe('close');
    let connected = false;
    const never = imagePullCheck(() => { connected = true; return Promise.resolve(rt); }, IMAGES, { policy: 'Never', serial: true });
    expect((await never.run({} as never)).errors).toEqual([]);
    expect(connected).toBe(false);
    expect(never.name).toBe('ImagePull');
  });
});
