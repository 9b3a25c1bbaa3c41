// Mutation check: applies each product mutation below to a scratch copy of the repository
// (never the working tree), rebuilds what it touches, runs the tests that should notice, and
// prints whether they did. Ends with "mutations: N caught, M survived"; exits 1 when a mutation
// that is not a proven equivalent survives, or when the unmutated copy fails its tests.
//
//   node tools/mutate.mjs [--list] [NAME_SUBSTRING...]      (make mutate)
//   node tools/mutate.mjs --check       every mutation's text is in the tree, once (make test:
//                                       a mutation gone stale fails at once, not when mutate runs)
//   node tools/mutate.mjs --scores      the largest |q·k| over the fixture sentences (float64
//                                       reference), behind the softmax mutant's equivalence
//
// The scratch copy is the working tree's files (tracked and new, not ignored) under a fresh
// directory in $TMPDIR, with node_modules and ../shared linked, removed at the end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const PARITY = ['node', 'tests/parity.mjs'];
const MLM_ONLY = ['node', 'tests/parity.mjs', '--mlm'];
const analysis = (pattern) => ['node', '--test', `--test-name-pattern=${pattern}`, 'tests/analysis.test.mjs'];
const FUZZ_REGRESSIONS = ['make', '--no-print-directory', 'test-fuzz-regressions'];
// The browser suite's view checks alone: what each view draws against the float64 analyses.
const VIEW_VALUES = ['node', 'tests/browser/run.mjs', 'viewvalues'];
// The converter's .bin readers and its bounds.
const TORCH = ['node', '--test', 'tests/converter-torch.test.mjs'];
const BOUNDS = ['node', '--test', 'tests/converter-bounds.test.mjs'];
// Hostile reader inputs, each a finding once (tests/converter-hostile.test.mjs).
const hostile = (pattern) => ['node', '--test', `--test-name-pattern=${pattern}`, 'tests/converter-hostile.test.mjs'];

const ablation = (pattern) => ['node', '--test', `--test-name-pattern=${pattern}`, 'tests/ablation.test.mjs'];
const native = (target, ...args) => ['sh', '-c', `make -s build/${target} >/dev/null && build/${target} ${args.join(' ')}`];
const SESSION_NATIVE = native('san/test_session', 'web/dist/bert-mini.int8.bin');
const CLI = ['sh', '-c', 'make -s build/attn >/dev/null && tests/cli.sh build/attn'];

// One test command's limit: past it the command is stopped, and a mutant that makes a test hang
// counts as caught (the baseline, unmutated, must pass within it).
const TEST_LIMIT_MS = 5 * 60 * 1000;

// Each: what it breaks, the edits (exact text, found once), what to rebuild, the tests to run.
// `equivalent` says why no test can see the mutation (it then does not count as a failure).
const MUTATIONS = [
  { name: 'ablation: a removed head\'s context kept', build: 'wasm', tests: [ablation('bit-identical')],
    edits: [['c/forward.c', 'if (removed[l * m->heads + h]) remove_head(s, l, h);',
      'if (removed[l * m->heads + h] && l < 0) remove_head(s, l, h);']] },
  { name: 'ablation: a changed set resumed one layer too high', build: 'wasm', tests: [ablation('resumed')],
    edits: [['c/attn.c', 'first_changed < done ? first_changed : done, 0);',
      'first_changed < done ? first_changed + (first_changed < m->layers - 1) : done, 0);']] },
  { name: 'non-finite values never refused', build: 'wasm', tests: [ablation('NaN')],
    edits: [['c/forward.c', 'if (!isfinite(values[i])) return 0;', 'if (!isfinite(values[i]) && count == 0) return 0;']] },
  { name: 'sessions never give buffers back', build: 'wasm', tests: [ablation('gives back')],
    edits: [['c/forward.c', 'const int shrink = s->capacity > SHRINK_ABOVE && n <= s->capacity / 2;',
      'const int shrink = s->capacity > SHRINK_ABOVE && n <= s->capacity / 2 && n < 0;']] },
  { name: 'a grow that cannot be had reported as done', build: 'none', tests: [SESSION_NATIVE],
    edits: [['c/forward.c', 'return shrink ? 0 : -1;', 'return shrink ? 0 : 0;']] },
  { name: 'importance: the answer is the top-1 when each word is masked in turn', build: 'none', tests: [SESSION_NATIVE],
    edits: [['c/attn.c', 's->ids[position] == mask ? s->batch_top1[c] : s->ids[position];', 's->ids[position] == mask ? s->batch_top1[c] : s->batch_top1[c];']] },
  { name: 'importance: every copy of a batch reads the first copy\'s row', build: 'none', tests: [SESSION_NATIVE],
    edits: [['c/forward.c', 'return s->options.copy_length > 0 ? s->options.final_rows[copy] : s->options.final_row;',
      'return s->options.copy_length > 0 ? s->options.final_rows[0 * copy] : s->options.final_row;']] },
  { name: 'importance: a removal the session holds already gives a Δ that is not 0', build: 'wasm', tests: [ablation('batched mean is')],
    edits: [['c/attn.c', '            delta[c] = 0;\n', '            delta[c] = 1e-9f;\n']] },
  { name: 'CLI: control characters reach the terminal', build: 'none', tests: [CLI],
    edits: [['c/cli.c', 'if (*p < 0x20 || *p == 0x7f || *p == \'\\\\\') {', 'if (*p == \'\\\\\') {']] },
  { name: 'CLI: a card key twice accepted', build: 'none', tests: [CLI],
    edits: [['c/cli.c', 'if (seen[k]++) return "a key appears twice";', 'if (seen[k]++ && k < 0) return "a key appears twice";']] },
  { name: 'loader: 1 position accepted', build: 'none',
    tests: [native('test_weights', 'web/dist/bert-mini.int8.bin', '../shared/checkpoints/bert-mini-int8')],
    edits: [['c/weights.c', 'in_range(h->max_positions, BERT_MIN_TOKENS, BERT_MAX_TOKENS)', 'in_range(h->max_positions, 1, BERT_MAX_TOKENS)']] },
  { name: 'GELU by its tanh approximation', build: 'wasm', tests: [PARITY],
    edits: [['c/kernels.c', `    int i = 0;
    for (; i + 4 <= count; i += 4) f4_store(x + i, f4_gelu(f4_load(x + i)));
    for (; i < count; i++) x[i] = gelu_scalar(x[i]);`, `    for (int i = 0; i < count; i++)
        x[i] = 0.5f * x[i] * (1.0f + tanhf(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
    if (count < 0) f4_store(x, f4_gelu(f4_load(x))), x[0] = gelu_scalar(x[0]);  /* keeps them used */`]] },
  { name: 'attention scores 2% larger (MLM check alone)', build: 'wasm', tests: [MLM_ONLY],
    edits: [['c/forward.c', '1.0f / sqrtf((float)size), probs, length)', '1.02f / sqrtf((float)size), probs, length)']] },
  { name: 'a NaN in one attention weight (13-token inputs)', build: 'wasm', tests: [PARITY],
    edits: [['c/kernels.c', '    for (; i < count; i++) x[i] *= f4_lane(inv, 0);\n',
      '    for (; i < count; i++) x[i] *= f4_lane(inv, 0);\n    if (count == 13) x[count - 1] = NAN;\n']] },
  { name: 'tokenizer keeps accents (tokenization mismatch)', build: 'wasm', tests: [PARITY],
    edits: [['c/tokenizer.c', 'if (!is_nonspacing_mark(c)) case_char(e, c, origin);', 'if (!is_nonspacing_mark(c) || c >= 0x300) case_char(e, c, origin);']] },
  { name: 'tokenizer full count one short (fuzz invariant on the seeds)', build: 'none', tests: [FUZZ_REGRESSIONS],
    edits: [['c/tokenizer.c', 'out->full_count = total < e->count_limit ? (int)total : e->count_limit;',
      'out->full_count = total < e->count_limit ? (int)total - 1 : e->count_limit;']] },
  { name: 'head roles: CLS sink reads the [SEP] mass', build: 'wasm', tests: [analysis('head roles')],
    edits: [['c/analysis.c', 'if (mass[ATTN_MASS_CLS] / n >= 0.5) roles |= ROLE_CLS_SINK;',
      'if (mass[ATTN_MASS_SEP] / n >= 0.5) roles |= ROLE_CLS_SINK;']] },
  { name: 'head roles: "broad" from 0.8 instead of 0.9', build: 'wasm', tests: [analysis('head roles')],
    edits: [['c/analysis.c', 'normalized / n >= 0.9) roles |= ROLE_BROAD;', 'normalized / n >= 0.8) roles |= ROLE_BROAD;']] },
  { name: 'contributions: head 1\'s W_O slice for every head', build: 'wasm', tests: [analysis('contributions')],
    edits: [['c/analysis.c', 'projected_norm(&m->layer[layer].attn_out, offset, v, size, buffer)',
      'projected_norm(&m->layer[layer].attn_out, 0, v, size, buffer)']] },
  { name: 'entropy in bits', build: 'wasm', tests: [analysis('row statistics')],
    edits: [['c/analysis.c', 'r.entropy -= p * log(p);', 'r.entropy -= p * log2(p);']] },
  { name: 'ratio to uniform as max·(n − 1)', build: 'wasm', tests: [analysis('row statistics')],
    edits: [['c/analysis.c', 'r.ratio = r.max * n;', 'r.ratio = r.max * (n - 1);']] },
  { name: 'rollout without the identity', build: 'wasm', tests: [analysis('rollout')],
    edits: [['c/analysis.c', '(i == j ? 0.5f : 0.0f)', '(i == j ? 0.0f : 0.0f)']] },
  { name: '√d what-if divides when asked not to', build: 'wasm', tests: [analysis('what-if')],
    edits: [['c/analysis.c', 'divide_by_sqrt_d ? 1.0f / sqrtf((float)size) : 1.0f', 'divide_by_sqrt_d ? 1.0f / sqrtf((float)size) : 0.5f']] },
  { name: 'inside a layer: residual from the wrong dimension', build: 'wasm', tests: [analysis('inside a layer')],
    edits: [['c/analysis.c', 'residual[i] = projected[i] + x[i];', 'residual[i] = projected[i] + x[(i + 1) % hidden];']] },
  { name: 'softmax without subtracting the row maximum', build: 'wasm', tests: [PARITY, analysis('what-if')],
    equivalent: 'e^(s−max)/Σe^(s−max) = e^s/Σe^s, so the two differ by rounding alone unless a score passes exp\'s ' +
      'clamp (88.38, or every score of a row under −87.34); the largest |q·k| of bert-mini on the fixture sentences ' +
      'is 75.1 even without the √d division, 9.4 with it (node tools/mutate.mjs --scores)',
    edits: [['c/kernels.c', 'const f4 vmax = f4_splat(max);', 'const f4 vmax = f4_splat(0.0f);'],
      ['c/kernels.c', 'const float e = exp_scalar(x[i] - max);', 'const float e = exp_scalar(x[i]);']] },
  { name: 'LayerNorm epsilon 1e-5 instead of the model\'s 1e-12', build: 'wasm', tests: [PARITY],
    edits: [['c/kernels.c', 'const float inv = 1.0f / sqrtf(var + eps);', 'const float inv = 1.0f / sqrtf(var + eps * 1e7f);']] },
  { name: 'LayerNorm epsilon dropped', build: 'wasm', tests: [PARITY, analysis('inside a layer')],
    equivalent: 'the model\'s eps is 1e-12; a float32 sum var + 1e-12 equals var for every var above 1.7e-5 ' +
      '(1e-12 is under half an ulp), and no LayerNorm input row of the model has a variance near that',
    edits: [['c/kernels.c', 'const float inv = 1.0f / sqrtf(var + eps);', 'const float inv = 1.0f / sqrtf(var + eps * 0.0f);']] },
  { name: 'page: the contributions view draws the next token\'s row', build: 'web', tests: [VIEW_VALUES],
    edits: [['web/src/views/contributions.mjs', 'const norms = session.contributions(layer, head, token);',
      'const norms = session.contributions(layer, head, (token + 1) % n);']] },
  { name: 'page: the matrix view draws rows shifted by one', build: 'web', tests: [VIEW_VALUES],
    edits: [['web/src/views/matrix.mjs', 'for (let i = 0; i < n; i++) rows.push(session.row(layer, head, i));',
      'for (let i = 0; i < n; i++) rows.push(session.row(layer, head, (i + 1) % n));']] },
  { name: 'page: inside a layer shows the previous layer', build: 'web', tests: [VIEW_VALUES],
    edits: [['web/src/views/layer.mjs', 'const steps = session.walkthrough(layer, token);',
      'const steps = session.walkthrough(Math.max(0, layer - 1), token);']] },
  { name: 'an empty golden file (mlm-more.json holds no cases)', build: 'none', tests: [PARITY],
    edits: [['tests/fixtures/bert-mini-int8/mlm-more.json', null, '[]\n']] },
  { name: 'unpickler: any global allowed', build: 'none', tests: [TORCH],
    edits: [['weights/torch-checkpoint.mjs', '  if (!ALLOWED.has(full)) {', '  if (!ALLOWED.has(full) && false) {']] },
  { name: 'unpickler: a storage\'s size not checked against its bytes', build: 'none', tests: [TORCH],
    edits: [['weights/torch-checkpoint.mjs', '      if (data.length !== s.numel * s.elementSize) {', '      if (data.length < 0) {']] },
  { name: 'torch tensors read contiguously whatever their strides', build: 'none', tests: [TORCH],
    edits: [['weights/torch-checkpoint.mjs', '  if (contiguous && !bigEndian) return', '  if (!bigEndian) return']] },
  { name: 'readers: a pickled value interpolated raw into a refusal', build: 'none', tests: [hostile('nested 10,000 deep')],
    edits: [['weights/torch-checkpoint.mjs', "fail('convert.refusal.pickle.offset', { label, offset: quoteValue(offset) })", "fail('convert.refusal.pickle.offset', { label, offset })"]] },
  { name: 'readers: _rebuild_from_type_v2 chains unbounded', build: 'none', tests: [hostile('_rebuild_from_type_v2')],
    edits: [['weights/torch-checkpoint.mjs', 'if (wrappers >= TORCH_LIMITS.rebuildWrappers) fail(', 'if (wrappers >= Infinity) fail(']] },
  { name: 'readers: the byteorder entry decoded whatever its length', build: 'none', tests: [hostile('byteorder')],
    edits: [['weights/torch-checkpoint.mjs', 'if (order && order.length > TORCH_LIMITS.byteorderBytes) fail(', 'if (order && order.length > Infinity) fail(']] },
  { name: 'readers: a legacy key list may name a storage twice', build: 'none', tests: [hostile('legacy key list')],
    edits: [['weights/torch-checkpoint.mjs', '    if (seen.has(key)) fail(', '    if (seen.has(key) && false) fail(']] },
  { name: 'readers: zip CRCs checked before the overlap check', build: 'none', tests: [hostile('1,500 zip entries')],
    edits: [['weights/torch-checkpoint.mjs', `  checkNoOverlap(ranges, label);
  for (const { name, crc } of ranges) {
    if ((yield* crc32Steps(entries.get(name))) !== crc) fail('convert.refusal.zip.crc', { label, name: shown(name) });
  }`, `  for (const { name, crc } of ranges) {
    if ((yield* crc32Steps(entries.get(name))) !== crc) fail('convert.refusal.zip.crc', { label, name: shown(name) });
  }
  checkNoOverlap(ranges, label);`]] },
  { name: 'readers: a file\'s size not checked before it is read', build: 'none', tests: [hostile('larger than its bound')],
    edits: [['weights/convert-core.mjs', 'if (most !== undefined && size > most) fail(', 'if (most !== undefined && size > most && false) fail(']] },
  { name: 'readers: tokenizer.json parsed before its entries are counted', build: 'none', tests: [hostile('400,000 vocabulary entries')],
    edits: [['weights/tokenizer-json.mjs', '++commas[depth] >= most', '++commas[depth] >= Infinity']] },
  { name: 'readers: added_tokens entries not checked to be objects', build: 'none', tests: [hostile('added_tokens')],
    edits: [['weights/tokenizer-json.mjs', "if (!entry || typeof entry !== 'object' || Array.isArray(entry)) fail(", 'if (false) fail(']] },
  { name: 'readers: lone surrogates in tokens accepted', build: 'none', tests: [hostile('added_tokens')],
    edits: [['weights/tokenizer-json.mjs', 'const lone = LONE_SURROGATE.exec(token);', 'const lone = null;']] },
  { name: 'readers: the command line exits 1 on a bug, as on a refusal', build: 'none', tests: [hostile('not a refusal')],
    edits: [['weights/convert.mjs', 'process.exit(e instanceof ConvertError ? 1 : 2);', 'process.exit(1);']] },
  { name: 'head lists: the page accepts a head named twice', build: 'none', tests: [['node', '--test', 'tests/head-list.test.mjs']],
    edits: [['web/src/head-list.mjs', "if (seen.has(key)) return { error: 'twice', item: key };", '']] },
  { name: 'head lists: --ablate refuses blanks after an item', build: 'none', tests: [['node', '--test', 'tests/head-list.test.mjs']],
    edits: [['c/cli.c', '    while (is_blank(**at)) (*at)++;\n    if (first < 0', '    if (first < 0']] },
  { name: 'converter notes: the page shows the English text', build: 'none', tests: [['node', '--test', 'tests/convert-notes.test.mjs']],
    edits: [['web/src/convert-run.mjs', 'notes.push(note ? { text, code: note.code, params: note.params } : { text })', 'notes.push({ text })']] },
  { name: 'converter refusals: one given an English sentence instead of a code', build: 'none', tests: [['node', '--test', 'tests/convert-refusals.test.mjs']],
    edits: [['weights/tokenizer-json.mjs', "fail('convert.refusal.tokenizerJson.notObject')", 'fail(`${LABEL} must hold a JSON object`)']] },
  { name: 'converter refusals: a reader\'s refusal without its code', build: 'none', tests: [['node', '--test', 'tests/converter-readers-fuzz.test.mjs']],
    edits: [['weights/convert-error.mjs', 'throw new ConvertError(phrase(code, params), [code, params]);', 'throw new ConvertError(phrase(code, params));']] },
  { name: 'vocab.txt lines collected before the count is checked (no line-length bound)', build: 'none', tests: [BOUNDS],
    edits: [['weights/convert-core.mjs', '    if (end - begin > VOCAB_LINE_MAX_BYTES) fail(', '    if (end - begin > Infinity) fail(']] },
  { name: 'page: the main-thread conversion runs in one piece', build: 'web', tests: [['node', 'tests/browser/run.mjs', 'testNoWorker']],
    edits: [['web/src/convert-run.mjs', '    if (performance.now() - sliceStart >= sliceMs) {', '    if (false) {']] },
  { name: 'page: Cancel does not stop the main-thread conversion', build: 'web', tests: [['node', 'tests/browser/run.mjs', 'testNoWorker']],
    edits: [['web/src/convert-run.mjs', '      if (isCancelled()) { conversion.steps.return(); return null; }\n', '']] },
  { name: 'page: a view out of memory does not say that the explorers share the memory', build: 'web', tests: [['node', 'tests/browser/run.mjs', 'testThreeExplorers512']],
    edits: [['web/src/explorer/loading.mjs', "statusName(error.code) === 'NO_MEMORY' ? t('error.noMemoryHint') : null", 'null']] },
  { name: 'no magnitude bound on the forward pass', build: 'none', tests: [BOUNDS],
    edits: [['weights/convert-core.mjs', '    if (!(b.value <= ACTIVATION_LIMIT)) {', '    if (b.value > Infinity) {']] },
];

function run(command, cwd, { quiet = true } = {}) {
  const started = Date.now();
  const result = spawnSync(command[0], command.slice(1), {
    cwd, encoding: 'utf8', maxBuffer: 1 << 28, timeout: TEST_LIMIT_MS, killSignal: 'SIGKILL',
    env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
  });
  const timedOut = result.error?.code === 'ETIMEDOUT';
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}` +
    (timedOut ? `\nFAIL: stopped after ${TEST_LIMIT_MS / 1000} s (a hang)\n` : '');
  if (!quiet) process.stdout.write(output);
  return { ok: result.status === 0, output, seconds: Math.round((Date.now() - started) / 1000), status: result.status, timedOut };
}

function scratchCopy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-mutate-'));
  const repo = path.join(dir, 'repo');
  const listed = run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], root);
  if (!listed.ok) throw new Error(`git ls-files: ${listed.output}`);
  for (const file of listed.output.split('\0').filter(Boolean)) {
    const from = path.join(root, file);
    if (!fs.existsSync(from)) continue;   // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.copyFileSync(from, path.join(repo, file));
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(repo, 'node_modules'));
  fs.symlinkSync(path.resolve(root, '../shared'), path.join(dir, 'shared'));
  return { dir, repo };
}

function build(kind, repo) {
  if (kind === 'wasm') return run(['./build.sh', 'wasm'], repo);
  if (kind === 'web') return run(['./build.sh', 'web'], repo);
  return { ok: true, output: '' };
}

/** Runs the tests in order; the first that fails catches the mutation. */
function firstFailure(tests, repo) {
  for (const test of tests) {
    const result = run(test, repo);
    if (!result.ok) return { test, result };
  }
  return null;
}

function lastLines(text, count) {
  return text.trimEnd().split('\n').slice(-count).map((l) => `      ${l}`).join('\n');
}

/** The lines of a failed test's output that say what failed (else its last lines). */
function failureLines(text, count) {
  const lines = text.split('\n').filter((l) => /FAIL|not ok|Error|Aborted|invariant failed/.test(l) && !/^# fail /.test(l));
  return lines.length ? lines.slice(0, count).map((l) => `      ${l.slice(0, 300)}`).join('\n') : lastLines(text, count);
}

/** Where `from` is in `text`, found exactly once; else why not (a mutation gone stale). */
function findOnce(file, text, from) {
  const at = text.indexOf(from);
  if (at >= 0 && text.indexOf(from, at + 1) < 0) return { at };
  return { problem: `${file}: the text to mutate is ${at < 0 ? 'missing' : 'there more than once'}: ${JSON.stringify(from.slice(0, 60))}` };
}

/** Every mutation's edits checked against the working tree: the problems, each with its mutation. */
function staleEdits(mutations) {
  const problems = [];
  for (const m of mutations) {
    for (const [file, from] of m.edits) {
      const target = path.join(root, file);
      if (!fs.existsSync(target)) { problems.push({ mutation: m.name, problem: `${file} is missing` }); continue; }
      if (from === null) continue;
      const found = findOnce(file, fs.readFileSync(target, 'utf8'), from);
      if (found.problem) problems.push({ mutation: m.name, problem: found.problem });
    }
  }
  return problems;
}

function applyEdits(repo, edits) {
  const originals = new Map();
  for (const [file, from, to] of edits) {
    const target = path.join(repo, file);
    const text = fs.readFileSync(target, 'utf8');
    if (!originals.has(file)) originals.set(file, text);
    if (from === null) { fs.writeFileSync(target, to); continue; }
    const found = findOnce(file, text, from);
    if (found.problem) throw new Error(found.problem);
    fs.writeFileSync(target, text.slice(0, found.at) + to + text.slice(found.at + from.length));
  }
  return () => { for (const [file, text] of originals) fs.writeFileSync(path.join(repo, file), text); };
}

async function largestScore() {
  const { loadCheckpoint, referenceInternals } = await import('../weights/reference.mjs');
  const model = loadCheckpoint(path.resolve(root, '../shared/checkpoints/bert-mini-int8'));
  const { hidden, heads, layers } = model.shape, size = hidden / heads;
  let largest = 0;
  for (const file of ['attention', 'pairs']) {
    const spec = JSON.parse(fs.readFileSync(path.join(root, `tests/fixtures/bert-mini-int8/${file}.json`), 'utf8'));
    for (const sentence of spec.sentences) {
      const { layers: inside } = referenceInternals(model, sentence.ids, { typeIds: sentence.type_ids });
      const n = sentence.ids.length;
      for (let l = 0; l < layers; l++) {
        const { query: q, key: k } = inside[l];
        for (let h = 0; h < heads; h++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
          let dot = 0;
          for (let t = h * size; t < (h + 1) * size; t++) dot += q[i * hidden + t] * k[j * hidden + t];
          largest = Math.max(largest, Math.abs(dot));
        }
      }
    }
  }
  console.log(`largest |q·k| over the fixture sentences: ${largest.toFixed(1)} (${(largest / Math.sqrt(size)).toFixed(1)} divided by √d)`);
  return 0;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--scores')) return largestScore();
  if (args.includes('--check')) {
    const problems = staleEdits(MUTATIONS);
    for (const { mutation, problem } of problems) console.log(`stale mutation: ${mutation} — ${problem}`);
    const stale = new Set(problems.map((p) => p.mutation)).size;
    console.log(`mutations: ${MUTATIONS.length - stale} of ${MUTATIONS.length} found in the tree`);
    return problems.length ? 1 : 0;
  }
  if (args.includes('--list')) {
    for (const m of MUTATIONS) console.log(`${m.name}${m.equivalent ? ' (equivalent)' : ''}`);
    return 0;
  }
  const chosen = args.length ? MUTATIONS.filter((m) => args.some((a) => m.name.includes(a))) : MUTATIONS;
  if (chosen.length === 0) { console.error('mutate: no mutation matches'); return 2; }
  const stale = staleEdits(chosen);
  if (stale.length) {
    for (const { mutation, problem } of stale) console.log(`stale mutation: ${mutation} — ${problem}`);
    return 1;
  }
  const { dir, repo } = scratchCopy();
  try {
    console.log(`scratch copy: ${repo}`);
    const baseline = build('wasm', repo);
    if (!baseline.ok) { console.log(`mutate: the unmutated copy does not build\n${lastLines(baseline.output, 20)}`); return 1; }
    const allTests = [...new Map(chosen.flatMap((m) => m.tests).map((t) => [t.join(' '), t])).values()];
    for (const test of allTests) {
      const result = run(test, repo);
      console.log(`baseline: ${test.join(' ')} — ${result.ok ? 'passes' : result.timedOut ? 'TIMES OUT' : 'FAILS'} (${result.seconds} s)`);
      if (!result.ok) { console.log(lastLines(result.output, 20)); return 1; }
    }
    let caught = 0, survived = 0, unexplained = 0, broken = 0;
    const equivalents = [];
    for (const m of chosen) {
      const restore = applyEdits(repo, m.edits);
      let line;
      try {
        const built = build(m.build, repo);
        const failure = built.ok ? firstFailure(m.tests, repo) : null;
        if (!built.ok) {
          broken++;
          line = `ERROR     ${m.name} — the mutated copy does not build (fix the mutation)\n${lastLines(built.output, 8)}`;
        } else if (failure) {
          caught++;
          line = `caught    ${m.name} — by ${failure.test.join(' ')}${failure.result.timedOut ? ' (timed out)' : ''}\n` +
            failureLines(failure.result.output, 4);
        } else {
          survived++;
          if (m.equivalent) equivalents.push(m.name); else unexplained++;
          line = `${m.equivalent ? 'survived' : 'SURVIVED'}  ${m.name}${m.equivalent ? ` — equivalent: ${m.equivalent}` : ''}`;
        }
      } finally {
        restore();
      }
      console.log(line);
    }
    if (equivalents.length) console.log(`equivalent mutants: ${equivalents.join('; ')}`);
    console.log(`mutations: ${caught} caught, ${survived} survived`);
    if (broken) console.log(`mutate: ${broken} mutations do not build`);
    return unexplained || broken ? 1 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
