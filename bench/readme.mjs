// Writes saved bench results into README.md's speed section and bench/README.md, between
// `<!-- bench:begin DIR -->` and `<!-- bench:end -->` markers, where DIR (under bench/out/)
// holds the chromium.json and node.json of one `make bench` (`.` = the default --out files;
// `make bench BENCH_ARGS='--out bench/out/DIR/node.json'` writes elsewhere, and browser.mjs
// puts chromium.json next to node.json). The tables are the bench's own Markdown output
// (bench/report.mjs), never typed by hand.
//
//   node bench/readme.mjs [--check]     --check: exit 1 if a file differs from what it would write
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { goalsLine, markdownAccuracy, markdownSpeed, speedupLine } from './report.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const BEGIN = /<!-- bench:begin ([^ ]+) -->/g;
const END = '<!-- bench:end -->';

function load(dir, name) {
  const file = `${root}bench/out/${dir}/${name}.json`;
  if (!existsSync(file)) throw new Error(`readme: ${file} missing: run make bench first`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

const loadText = (r) => `load average ${r.load.map((x) => x.toFixed(2)).join(' ')} at the end` +
  (r.maxLoad ? `, highest 1-minute load ${r.maxLoad.toFixed(2)} during the run` : '');
const about = (r) => `${r.environment}, ${r.machine}, ${r.date.slice(0, 16).replace('T', ' ')} UTC, ` +
  `weights \`${r.weights.replace(/^\//, '')}\`, ${loadText(r)}, seed ${r.seed}`;

function section(results, { full }) {
  const lines = [];
  for (const [title, r, label] of results) {
    lines.push(`**${title}** (${about(r)}):`, '', markdownSpeed(r), '');
    if (full) lines.push('```', ...(r.agreement ? [r.agreement] : []), goalsLine(r).replace(/^goals:/, `goals${label}:`), speedupLine(r, `speedup${label}`), '```', '');
  }
  const [, first] = results[0];
  lines.push(`What each engine's speed buys: attention error against the float64 fixtures of its checkpoint (all ${first.errors.ours.sentences} sentences of \`attention.json\`, measured ${results[0][0].replace(/^In/, 'in')}):`,
    '', markdownAccuracy(first));
  return lines.join('\n');
}

/** Every marked block of `text` rewritten from the results its marker names. */
function rewrite(text, file, full) {
  let out = '', last = 0;
  for (const match of text.matchAll(BEGIN)) {
    const end = text.indexOf(END, match.index);
    if (end < 0) throw new Error(`readme: ${file}: ${match[0]} without ${END}`);
    const dir = match[1];
    const results = [['In Chromium', load(dir, 'chromium'), ' (chromium)'], ['In Node', load(dir, 'node'), '']];
    out += text.slice(last, match.index + match[0].length) + '\n' + section(results, { full }) + '\n';
    last = end;
  }
  if (!last) throw new Error(`readme: ${file} has no <!-- bench:begin DIR --> marker`);
  return out + text.slice(last);
}

const check = process.argv.includes('--check');
let stale = false;
for (const [file, full] of [['README.md', false], ['bench/README.md', true]]) {
  const text = readFileSync(`${root}${file}`, 'utf8');
  const next = rewrite(text, file, full);
  if (next === text) continue;
  stale = true;
  if (!check) writeFileSync(`${root}${file}`, next);
  console.log(`${check ? 'stale' : 'wrote'}: ${file}`);
}
if (check && stale) process.exit(1);
