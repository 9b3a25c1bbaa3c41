// The programs a browser test file needs (Chromium, Jupyter, …). Outside CI a file whose programs
// are missing skips every test with the reason, said loudly; under CI=true a missing prerequisite
// fails the run instead, as every skip of `make test` does there (Makefile: node-tests).
import { accessSync, constants } from 'node:fs';

/**
 * `programs`: [[path, where it comes from], …]. Returns `reason` (each missing program named, ''
 * when none is) and `skip`: the reason outside CI, false under CI=true or when nothing is missing.
 */
export function prerequisites(label, programs) {
  const reason = programs.filter(([file]) => !isExecutable(file))
    .map(([file, source]) => `${file} is missing (${source})`).join('; ');
  const skip = reason && process.env.CI !== 'true' ? reason : false;
  if (skip) console.error(`${label}: SKIPPED, every test: ${skip}`);
  return { reason, skip };
}

/** Throws, naming what is missing, when anything is (a hook's first line: under CI=true it fails every test). */
export function requirePrerequisites(label, reason) {
  if (reason) throw new Error(`${label}: ${reason} (CI=true: a missing prerequisite fails the run)`);
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
