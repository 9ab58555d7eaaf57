import { hostname as osHostname } from 'node:os';
import { readAnswer } from '../../cli/confirm.js';
import type { HealthCheck } from '../../health/http-check.js';
import type { ConnectRuntimeConfig } from '../preflight/checks.js';
import { connectCri } from '../../host/cri-client.js';

/** The seams of an upgrade run beyond the host, the API (ctx.api) and the machine (ctx.system); the defaults are the real machine. */
export interface UpgradeDeps {
  /** One line of the user's answer; undefined when there is no input to read (closed stdin). */
  confirm(): Promise<string | undefined>;
  /** The CRI seam of preflight's ContainerRuntimeVersion (the real client by default). */
  readonly connectRuntime: ConnectRuntimeConfig;
  hostname(): string;
  /** How the control-plane phase asks a component's health endpoint (default: a real HTTP(S) GET); tests answer for components they do not run. */
  readonly healthCheck?: HealthCheck;
}

export function realUpgradeDeps(stdin: NodeJS.ReadableStream, overrides: Partial<UpgradeDeps> = {}): UpgradeDeps {
  return {
    confirm: () => readAnswer(stdin),
    connectRuntime: (socket) => connectCri(socket),
    hostname: () => osHostname().trim().toLowerCase(),
    ...overrides,
  };
}
