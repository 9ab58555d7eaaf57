import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import type { CliIO } from '../../src/cli/io.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** In-process streams for main(argv, io) or a workflow: stdout and stderr captured (no TTY), stdin as given. */
export function captureIo(
  stdin: NodeJS.ReadableStream = new PassThrough(),
  env: NodeJS.ProcessEnv = {},
): { io: CliIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return { io: { stdout, stderr, stdin, env }, out: () => out, err: () => err };
}

/** Runs the CLI in-process with captured streams (no TTY, so plain kubeadm-style lines). */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, stdin?: NodeJS.ReadableStream): Promise<CliRun> {
  const { io, out, err } = captureIo(stdin, { ...env });
  const code = await main(args, io);
  return { code, stdout: out(), stderr: err() };
}
