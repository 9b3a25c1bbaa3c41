// Weights files a hostile converter could write, made from the default file in place (same
// lengths, checksums recomputed), for tests/cli.sh:
//   node tests/make-hostile-weights.mjs OUTDIR
// vocab-control.bin: the vocabulary lines "the" and "," hold ESC [ m and BEL (the tokenizer
//   accepts them: they are UTF-8); card-shadow.bin: a card that closes its object and adds a
//   "shape"; card-duplicate.bin: a key twice; card-control.bin: a raw ESC inside a string;
//   card-legacy.bin: a card of sentences as files written before carry; card-positional.bin: head
//   roles with heads 1.4 (previous word) and 3.2 (next word); card-list-text.bin: a list holding a string;
// positions-2.bin: max_position_embeddings 2 in the header; query-scale.bin: layer 0's first query
//   row scale 3.4e38 (finite, so the loader takes it; every run's attention is then NaN).
import { readFileSync, writeFileSync } from 'node:fs';
import { AT, ENTRY, entryOf, rechecksum } from './lib/corrupt-weights.mjs';
import { defaultWeights } from './lib/node-engine.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node tests/make-hostile-weights.mjs OUTDIR');
const good = readFileSync(defaultWeights);
const u64 = (buf, at) => Number(buf.readBigUInt64LE(at));

function withVocabLines(replacements) {
  const buf = Buffer.from(good);
  const start = u64(buf, AT.vocabOffset), end = start + u64(buf, AT.vocabBytes);
  const lines = buf.toString('latin1', start, end).split('\n');
  for (const [from, to] of replacements) {
    const i = lines.indexOf(from);
    if (i < 0 || to.length !== from.length) throw new Error(`cannot replace ${from}`);
    lines[i] = to;
  }
  buf.write(lines.join('\n'), start, 'latin1');
  return rechecksum(buf);
}

function withCard(text) {
  const buf = Buffer.from(good);
  const offset = buf.readUInt32LE(AT.cardOffset), bytes = buf.readUInt32LE(AT.cardBytes);
  if (text.length > bytes - 1) throw new Error('card too long');
  buf.write(text.padEnd(bytes - 1, ' '), offset, 'latin1');
  return rechecksum(buf);
}

writeFileSync(`${out}/vocab-control.bin`, withVocabLines([['the', '\x1b[m'], [',', '\x07']]));
writeFileSync(`${out}/card-shadow.bin`, withCard('{"name":"x"},"shape":{"vocab":1,"layers":99}'));
writeFileSync(`${out}/card-duplicate.bin`, withCard('{"name":"x","name":"y"}'));
writeFileSync(`${out}/card-control.bin`, withCard('{"name":"\x1b]0;title\x07"}'));
// Cards a reader must still show: one written before (English sentences), one with positional heads.
writeFileSync(`${out}/card-legacy.bin`, withCard('{"name":"old","architecture":"BERT encoder (post-LayerNorm)","precision":"every matrix int8","limits":"No masked-word head: attention only"}'));
const heads = (value, at = -1, atValue = 0) => JSON.stringify(Array.from({ length: 16 }, (_, i) => (i === at ? atValue : value)));
writeFileSync(`${out}/card-positional.bin`, withCard(`{"name":"p","heldout_mlm_accuracy":0.5,"masked_word_head":true,"head_next":${heads(0.01, 9, 0.71)},"head_previous":${heads(0.02, 3, 0.93)},"head_cls":${heads(0.1)},"head_sep":${heads(0.05)}}`));
writeFileSync(`${out}/card-list-text.bin`, withCard('{"name":"x","head_next":[0.1,"a"]}'));
const positions = Buffer.from(good);
positions.writeUInt32LE(2, 84);  /* max_positions (c/weights.c read_header) */
writeFileSync(`${out}/positions-2.bin`, rechecksum(positions));
const huge = Buffer.from(good);
const scale = u64(huge, entryOf(huge, 'bert.encoder.layer.0.attention.self.query.weight') + ENTRY.scaleOffset);
huge.writeFloatLE(3.4e38, scale);
writeFileSync(`${out}/query-scale.bin`, rechecksum(huge));
