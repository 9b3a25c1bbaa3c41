// Sentence pairs in the golden fixtures (`text_b`, tests/fixtures/README.md): runs a fixture
// sentence as the engine should (a pair when it has text_b, else a single text) and checks
// what a pair adds to the ids: token types and per-segment offsets, exactly.

const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const sameOffsets = (a, b) => a.length === b.length && a.every((o, i) => o[0] === b[i][0] && o[1] === b[i][1]);
const REPORTED = 5;
let reported = 0;

export const isPair = (sentence) => typeof sentence.text_b === 'string';

/** What differs between a pair run and the fixture sentence ([] when nothing does). */
export function pairDifferences(run, sentence) {
  const differences = [];
  if (!same(run.ids, sentence.ids)) differences.push('ids');
  if (!same(run.typeIds, sentence.type_ids)) differences.push('type ids');
  if (!sameOffsets(run.offsets, sentence.offsets)) differences.push('offsets');
  return differences;
}

/**
 * Runs the fixture sentence on the session and returns the run. A pair whose type ids or
 * offsets differ from the fixture comes back with no ids, so that a caller comparing ids
 * counts it as a tokenization mismatch; the first few differences are printed.
 */
export function runFixtureSentence(session, sentence) {
  if (!isPair(sentence)) return session.runText(sentence.text);
  const run = session.runPair(sentence.text, sentence.text_b);
  const differences = pairDifferences(run, sentence);
  if (differences.length === 0) return run;
  if (reported++ < REPORTED) {
    console.log(`  pair ${JSON.stringify(sentence.text.slice(0, 40))} + ${JSON.stringify(sentence.text_b.slice(0, 40))}: ` +
      `${differences.join(', ')} differ\n    expected ${JSON.stringify(sentence.tokens)} ${JSON.stringify(sentence.type_ids)}\n` +
      `    got      ${JSON.stringify(run.tokens)} ${JSON.stringify(run.typeIds)}`);
  }
  return { ...run, ids: [] };
}
