// The benchmarks' blocks, each in a fresh Node process: the script runs itself again with the
// same flags and arguments plus `--block K --block-out FILE`, writes its block's result there as
// JSON, and the parent collects them (bench.mjs and ab.mjs; the method: bench/README.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs `scriptUrl` (an import.meta.url) once per block, one after another; extraArgs(block)
 * adds arguments to a block. Returns each block's JSON, in order. */
export function runBlocksInChildren(scriptUrl, blocks, name, extraArgs = () => []) {
  const dir = mkdtempSync(path.join(tmpdir(), `${name}-blocks-`));
  try {
    const outs = [];
    for (let block = 0; block < blocks; block++) {
      const file = path.join(dir, `block-${block}.json`);
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(scriptUrl), ...process.argv.slice(2),
        '--block', String(block), '--block-out', file, ...extraArgs(block)], { stdio: 'inherit' });
      if (child.status !== 0) throw new Error(`${name}: block ${block + 1} failed (exit ${child.status ?? child.signal})`);
      outs.push(JSON.parse(readFileSync(file, 'utf8')));
    }
    return outs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
