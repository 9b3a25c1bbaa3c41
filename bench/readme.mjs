// Writes the saved results of the last `make bench` (bench/out/chromium.json, bench/out/node.json)
// into README.md's speed section and bench/README.md's "Last run" section, between the
// `<!-- bench:begin -->` and `<!-- bench:end -->` markers: the tables come from the bench's
// own Markdown output (bench/report.mjs), never typed by hand.
//
//   node bench/readme.mjs [--check]     --check: exit 1 if the files differ from what it would write
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { goalsLine, markdownAccuracy, markdownSpeed, speedupLine } from './report.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const BEGIN = '<!-- bench:begin (node bench/readme.mjs writes this part from bench/out/*.json) -->';
const END = '<!-- bench:end -->';

function load(name) {
  const file = `${root}bench/out/${name}.json`;
  if (!existsSync(file)) throw new Error(`readme: ${file} missing: run make bench first`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

const loadText = (r) => `load average ${r.load.map((x) => x.toFixed(2)).join(' ')} at the end` +
  (r.maxLoad ? `, highest 1-minute load ${r.maxLoad.toFixed(2)} during the run` : '');
const about = (r) => `${r.environment}, ${r.machine} × 2, ${r.date.slice(0, 16).replace('T', ' ')} UTC, ` +
  `weights \`${r.weights.replace(/^\//, '')}\`, ${loadText(r)}, seed ${r.seed}`;

function section(results, { full }) {
  const lines = [];
  for (const [title, r, label] of results) {
    lines.push(`**${title}** (${about(r)}):`, '', markdownSpeed(r), '');
    if (full) lines.push('```', goalsLine(r).replace(/^goals:/, `goals${label}:`), speedupLine(r, `speedup${label}`), '```', '');
  }
  const [, first] = results[0];
  lines.push(`What each engine's speed buys: attention error against the float64 fixtures of its checkpoint (${first.errors.ours.sentences} sentences, ${results[0][0]}):`,
    '', markdownAccuracy(first));
  return lines.join('\n');
}

function replaceBetween(text, body, file) {
  const a = text.indexOf(BEGIN), b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`readme: ${file} lacks the ${BEGIN} … ${END} markers`);
  return text.slice(0, a + BEGIN.length) + '\n' + body + '\n' + text.slice(b);
}

const results = [['In Chromium', load('chromium'), ' (chromium)'], ['In Node', load('node'), '']];
const check = process.argv.includes('--check');
let stale = false;
for (const [file, full] of [['README.md', false], ['bench/README.md', true]]) {
  const text = readFileSync(`${root}${file}`, 'utf8');
  const next = replaceBetween(text, section(results, { full }), file);
  if (next === text) continue;
  stale = true;
  if (!check) writeFileSync(`${root}${file}`, next);
  console.log(`${check ? 'stale' : 'wrote'}: ${file}`);
}
if (check && stale) process.exit(1);
