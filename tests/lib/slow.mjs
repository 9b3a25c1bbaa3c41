// Tests that take minutes run in `make test-all` (ATTN_TEST_ALL=1) and are left out of the fast
// loop `make test`, where they show as skipped with this reason (the Makefile counts those apart:
// they never fail a CI run, and under `make test-all` none is skipped).
//   test('a long one', ALL_ONLY, () => { … });
//   test('a long one that needs ../shared', allOnly({ skip: missing && 'why' }), () => { … });
const REASON = 'runs in make test-all (ATTN_TEST_ALL=1)';
const all = process.env.ATTN_TEST_ALL === '1';

export function allOnly(options = {}) {
  return all || options.skip ? options : { ...options, skip: REASON };
}

export const ALL_ONLY = allOnly();
