import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import type { CliIO } from '../../src/cli/io.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process with captured streams (no TTY, so plain kubeadm-style lines). */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const io: CliIO = { stdout, stderr, stdin: new PassThrough(), env: { ...env } };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}
