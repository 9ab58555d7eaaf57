/**
 * The Debian package's Depends and copyright (scripts/lib/deb-depends.mjs, scripts/lib/deb-copyright.mjs),
 * on the pinned Node.js binary the single executable is made of and the installed npm packages.
 * Oracles: binutils (`readelf`, and `objdump -T`'s symbol versions as a second reading), Debian's
 * dpkg-shlibdeps and dpkg --compare-versions, and the packages' own license files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error: plain JavaScript without types (jest loads it outside the TypeScript transform)
import { glibcNeeded as glibcNeededJs, glibcOf as glibcOfJs, versionNeeds as versionNeedsJs, withLibc as withLibcJs } from '../../scripts/lib/deb-depends.mjs';
// @ts-expect-error: plain JavaScript without types
import { copyrightFile as copyrightFileJs, readPackageNotice as readPackageNoticeJs } from '../../scripts/lib/deb-copyright.mjs';

type Notice = { name: string; version: string; license: string; text?: string; copyright: string[] };
const versionNeeds = versionNeedsJs as (text: string) => Map<string, string[]>;
const glibcNeeded = glibcNeededJs as (needs: Map<string, string[]>) => string | undefined;
const glibcOf = glibcOfJs as (binary: string) => string;
const withLibc = withLibcJs as (depends: string, glibc: string) => string;
const readPackageNotice = readPackageNoticeJs as (dir: string) => Notice;
const copyrightFile = copyrightFileJs as (input: { years: string; packages: (Notice & { path: string })[]; node: { path: string; version: string; license: string } }) => string;

const REPO = process.cwd();
const NODE_PACKAGE = path.join(REPO, 'node_modules', `node-linux-${process.arch}`);
const NODE = path.join(NODE_PACKAGE, 'bin', 'node');
const dpkgAtMost = (a: string, b: string): boolean => spawnSync('dpkg', ['--compare-versions', a, 'le', b]).status === 0;

describe('Depends', () => {
  test('libc6\'s minimum is the highest GLIBC_ version the binary needs, at most 2.28; the other libraries as dpkg-shlibdeps names them', () => {
    const glibc = glibcOf(NODE);
    // objdump's reading: the highest GLIBC_ version of any dynamic symbol the binary binds.
    const objdump = execFileSync('objdump', ['-T', NODE], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const symbolVersions = [...new Set([...objdump.matchAll(/\bGLIBC_(\d+\.\d+(?:\.\d+)?)\b/g)].map((m) => m[1]!))];
    expect(symbolVersions.length).toBeGreaterThan(1);
    const highest = symbolVersions.reduce((a, b) => (dpkgAtMost(a, b) ? b : a));
    expect(glibc).toBe(highest);
    expect(dpkgAtMost(glibc, '2.28')).toBe(true);

    const work = mkdtempSync(path.join(tmpdir(), 'tsadm-shlibdeps-'));
    try {
      mkdirSync(path.join(work, 'debian'));
      writeFileSync(path.join(work, 'debian', 'control'), `Source: tsadm\n\nPackage: tsadm\nArchitecture: ${process.arch === 'arm64' ? 'arm64' : 'amd64'}\n`);
      const out = execFileSync('dpkg-shlibdeps', ['-O', '-e', NODE], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      const shlibs = /shlibs:Depends=(.*)/.exec(out)![1]!.trim();
      const depends = withLibc(shlibs, glibc);
      const entries = depends.split(', ');
      expect(entries.filter((e) => e.startsWith('libc6'))).toEqual([`libc6 (>= ${glibc})`]);
      // Every other library dpkg-shlibdeps names is kept as it wrote it.
      expect(entries.filter((e) => !e.startsWith('libc6 '))).toEqual(shlibs.split(', ').filter((e) => !e.startsWith('libc6 ')));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('version needs are read per library; libc6 is set or added', () => {
    const text = [
      "Version needs section '.gnu.version_r' contains 2 entries:",
      ' Addr: 0x0000000000741bb0  Offset: 0x00341bb0  Link: 6 (.dynstr)',
      '  000000: Version: 1  File: libm.so.6  Cnt: 1',
      '  0x0010:   Name: GLIBC_2.29  Flags: none  Version: 4',
      '  0x0020: Version: 1  File: libc.so.6  Cnt: 2',
      '  0x0030:   Name: GLIBC_2.3.4  Flags: none  Version: 3',
      '  0x0040:   Name: GLIBC_2.17  Flags: none  Version: 2',
      '',
      "Version definition section '.gnu.version_d' contains 1 entry:",
      '  000000: Rev: 1  Flags: none  Index: 1  Cnt: 1  Name: GLIBC_9.99',
    ].join('\n');
    const needs = versionNeeds(text);
    expect([...needs]).toEqual([['libm.so.6', ['GLIBC_2.29']], ['libc.so.6', ['GLIBC_2.3.4', 'GLIBC_2.17']]]);
    expect(glibcNeeded(needs)).toBe('2.29');
    expect(glibcNeeded(new Map([['libc.so.6', ['GLIBC_2.3.4', 'GLIBC_2.17']]]))).toBe('2.17');
    expect(withLibc('libc6 (>= 2.34), libgcc-s1 (>= 3.4)', '2.28')).toBe('libc6 (>= 2.28), libgcc-s1 (>= 3.4)');
    expect(withLibc('libstdc++6 (>= 10.2)', '2.28')).toBe('libc6 (>= 2.28), libstdc++6 (>= 10.2)');
  });
});

describe('copyright', () => {
  const dirs = ['node_modules/yargs', 'node_modules/node-forge', 'node_modules/@grpc/grpc-js'];
  const packages = dirs.map((d) => ({ path: d, ...readPackageNotice(path.join(REPO, d)) }));
  const nodeLicense = readFileSync(path.join(NODE_PACKAGE, 'LICENSE'), 'utf8');
  const text = copyrightFile({ years: '2026', packages, node: { path: 'node_modules/node-linux-*', version: 'v24.0.0', license: nodeLicense } });
  const paragraphs = text.trimEnd().split('\n\n').map((p) => p.split('\n'));

  test('DEP-5: a header, then Files paragraphs with Copyright and License, continuation lines indented, each License short name without text defined once', () => {
    expect(paragraphs[0]![0]).toBe('Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/');
    for (const p of paragraphs) {
      // A field starts a line; a continuation line is indented and never blank (an empty line is " .").
      for (const line of p) expect(line).toMatch(/^([A-Z][A-Za-z-]*: | .*\S)/);
    }
    const files = paragraphs.filter((p) => p[0]!.startsWith('Files: '));
    expect(files.map((p) => p[0])).toEqual(['Files: *', 'Files: node_modules/node-linux-*/*', ...dirs.slice().sort().map((d) => `Files: ${d}/*`)]);
    for (const p of files) {
      expect(p.some((l) => l.startsWith('Copyright: '))).toBe(true);
      expect(p.some((l) => l.startsWith('License: '))).toBe(true);
    }
    // A License field with no text refers to a stand-alone License paragraph, which exists once.
    const standalone = paragraphs.filter((p) => p[0]!.startsWith('License: ')).map((p) => p[0]!.slice('License: '.length));
    expect(new Set(standalone).size).toBe(standalone.length);
    for (const p of files) {
      const i = p.findIndex((l) => l.startsWith('License: '));
      if (i === p.length - 1) expect(standalone).toContain(p[i]!.slice('License: '.length));
    }
  });

  test('the notices themselves: Node.js\'s whole LICENSE, each package\'s license file and copyright lines', () => {
    const unfold = (lines: string[]): string => lines.map((l) => (l === ' .' ? '' : l.slice(1))).join('\n');
    const node = paragraphs.find((p) => p[0] === 'Files: node_modules/node-linux-*/*')!;
    expect(unfold(node.slice(node.findIndex((l) => l.startsWith('License: ')) + 1))).toBe(nodeLicense.replace(/\s+$/, '').split('\n').map((l) => l.replace(/\s+$/, '')).join('\n'));
    expect(nodeLicense).toMatch(/externally maintained libraries/);
    const yargs = paragraphs.find((p) => p[0] === 'Files: node_modules/yargs/*')!;
    expect(yargs).toContain('License: MIT');
    const yargsLicense = readFileSync(path.join(REPO, 'node_modules/yargs/LICENSE'), 'utf8');
    expect(unfold(yargs.slice(yargs.indexOf('License: MIT') + 1))).toBe(yargsLicense.replace(/\s+$/, '').split('\n').map((l) => l.replace(/\s+$/, '')).join('\n'));
    expect(yargs.find((l) => l.startsWith('Copyright: '))).toMatch(/^Copyright: \d{4}/);
    expect(paragraphs.find((p) => p[0] === 'Files: node_modules/node-forge/*')).toContain('License: BSD-3-Clause or GPL-2.0');
    // Apache-2.0 is referred to Debian's copy, not repeated.
    const grpc = paragraphs.find((p) => p[0] === 'Files: node_modules/@grpc/grpc-js/*')!;
    expect(grpc.at(-1)).toBe('License: Apache-2.0');
  });
});
