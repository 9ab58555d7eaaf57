import { PassThrough } from 'node:stream';
import { main } from './main.js';

/**
 * What `tsadm <words…> --help` prints, computed in this process: the Debian package's man pages
 * (scripts/package-deb.mjs) need the help of ~150 commands, and one executable start per page cost
 * ~1 s each without a code cache (the cross-built arm64 twin). Same code path as the command line
 * (main with the environment given), so the text is the one the executable prints.
 */
export async function helpText(words: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main([...words, '--help'], { stdout, stderr, stdin: new PassThrough(), env });
  if (code !== 0) throw new Error(`tsadm ${[...words, '--help'].join(' ')} exited ${code}: ${err.trim()}`);
  return out;
}
