// The converter's calibration text and a tokenizer for it.
//
// CALIBRATION_SENTENCES: varied English (narrative, technical, dialogue, lists, numbers,
// punctuation), ASCII only, so that tokenizeAscii can turn it into ids without the Unicode
// tables: activations measured on it are what the converter spends precision by.
//
// tokenizeAscii(vocabLines, text): BERT uncased WordPiece restricted to ASCII, giving the same
// ids as the reference tokenizer (tests/fixtures/tokenize.jsonl) on ASCII text.
import { SPECIAL, SPECIAL_TOKENS } from '../c/spec.mjs';

export const CALIBRATION_SENTENCES = [
  // narrative
  'The ferry left the harbour an hour late, and by the time it reached the island the fog had settled over the cliffs like wet wool.',
  'She counted the steps twice, found a different number each time, and decided the staircase was lying to her.',
  'Nobody in the village remembered who had planted the walnut tree, only that it had always leaned toward the river.',
  'He folded the letter into quarters, then eighths, until it was small enough to forget in a coat pocket for eleven years.',
  'The dog waited by the gate every evening at six.',
  'After the storm the beach was covered in rope, bottles, a single boot and thousands of tiny crabs heading nowhere in particular.',
  // technical
  'To reset the router, hold the recessed button for ten seconds until the status light blinks amber, then release it and wait.',
  'The function returns null when the input buffer is empty; callers must check the result before reading its length field.',
  'Each layer normalizes its input, projects it into queries, keys and values, and mixes the values by the softmax of scaled dot products.',
  'Set the compiler flags to -O2 -Wall -Wextra and rebuild; the warning about the unused variable on line 212 should disappear.',
  'A checksum over the whole file lets the loader refuse a truncated download instead of crashing halfway through parsing it.',
  'Photosynthesis converts light, water and carbon dioxide into glucose and oxygen inside the chloroplasts of plant cells.',
  // dialogue
  '"Are you coming or not?" she asked. "Because the train will not wait for you, and neither will I."',
  '"I never said that," he replied. "I said it might rain, which is not the same thing at all."',
  'Q: Where did you leave the keys? A: On the table, next to the bread. Q: Which table? A: The one with the bread on it.',
  '"Well?" "Well what?" "Did it work?" "Ask me again tomorrow."',
  'Mom, can we get a cat? Please? I will feed it every single day, I promise!',
  // lists
  'Shopping list: eggs, flour, two lemons, butter (unsalted), baking soda, and something for dinner on Thursday.',
  'Packing for the hike: water, map, compass, rain jacket; optional: camera, snacks, a paperback that nobody will read.',
  'First, preheat the oven. Second, grease the tin. Third, mix the dry ingredients. Fourth, add the eggs one at a time.',
  'Pros: cheap, light, quiet. Cons: slow, fragile, and the battery dies after about forty minutes of use.',
  // numbers
  'The invoice totals $1,284.50, due on 2024-03-15, with a 2.5% late fee charged after 30 days.',
  'In 1969 the crew travelled roughly 384,400 km to reach the moon, a trip that took a little over three days.',
  'Set the timer for 3:45, stir at the 90-second mark, and serve at 65 degrees or slightly cooler.',
  'Room 4B seats 120 people; rooms 7 and 12 together hold another 85, so about 205 guests fit in total.',
  'Version 3.10.2 fixed 17 bugs, closed 4 security holes and made startup 1.8x faster on older laptops.',
  // punctuation and odd forms
  'Wait... what?! You sold the piano -- the one grandma left us -- for twenty dollars?',
  'Email support@example.org or call (555) 010-4477; office hours are Mon-Fri, 9am-5pm.',
  'The so-called "smart" fridge kept ordering milk; we unplugged it, obviously.',
  "It's not that I don't like jazz; it's that jazz doesn't seem to like me.",
  'Use #tags, @mentions and *emphasis* sparingly: readers notice.',
  'Is it [MASK] or is it memory that makes the old songs sound better?',
  // short and plain
  'Close the kitchen window, please.',
  'The results were surprisingly consistent across all three trials.',
  'Rain is expected later today.',
  'Bread, cheese, and a quiet afternoon.',
  'We should probably leave before the bridge closes for the night.',
  'The committee postponed its decision until the auditors had reviewed the figures.',
  // long
  'When the old railway station was finally converted into a library, the town argued for months about what to keep: '
    + 'the clock that had stopped at twenty past four, the iron benches worn smooth by a century of waiting, the ticket '
    + 'windows with their brass grilles, and the long echo that followed every footstep across the hall. In the end they '
    + 'kept all of it, added shelves between the pillars and lamps above the platforms, and opened on a wet Saturday in '
    + 'November. Hundreds came, mostly to look at the ceiling, and some, to the surprise of the librarians, to borrow books, '
    + 'which they carried home under their coats as if the rain might read them first.',
  'A good experiment begins long before anything is measured: you decide what question you are asking, what answer would '
    + 'surprise you, and which mistakes are most likely to fool you into seeing what you hoped to see. Then you write the '
    + 'procedure down, run a small pilot, and change the plan when the pilot shows that the instrument drifts, the samples '
    + 'spoil, or the volunteers get bored after twenty minutes. Only after that do you collect the real data, and even then '
    + 'you keep a notebook of everything that went wrong, because the problems you ignore today are the ones a reviewer will '
    + 'find tomorrow, usually in the first paragraph of the report.',
];

const SPECIAL_PATTERN = new RegExp(`(${SPECIAL_TOKENS.map((t) => t.replace(/[[\]]/g, '\\$&')).join('|')})`);
const MAX_WORD_CHARACTERS = 100;
const vocabularies = new WeakMap();

function vocabularyOf(vocabLines) {
  let ids = vocabularies.get(vocabLines);
  if (!ids) {
    ids = new Map();
    vocabLines.forEach((token, id) => { if (!ids.has(token)) ids.set(token, id); });
    for (const token of SPECIAL_TOKENS) {
      if (!ids.has(token)) throw new Error(`the vocabulary has no ${token}`);
    }
    vocabularies.set(vocabLines, ids);
  }
  return ids;
}

const isAsciiPunctuation = (c) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
const isWhitespace = (c) => c === 32 || c === 9 || c === 10 || c === 13;
const isControl = (c) => (c < 32 || c === 127) && !isWhitespace(c);

/** Lowercased words and punctuation marks of ASCII text without special tokens. */
function basicTokens(text) {
  const words = [];
  let word = '';
  const flush = () => { if (word) words.push(word); word = ''; };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isControl(c)) continue;            // dropped, so the characters either side join
    if (isWhitespace(c)) flush();
    else if (isAsciiPunctuation(c)) { flush(); words.push(text[i]); }
    else word += text[i].toLowerCase();
  }
  flush();
  return words;
}

/** Greedy longest-match WordPiece; the whole word becomes [UNK] if any piece is missing. */
function wordPieces(word, ids) {
  const unknown = [ids.get(SPECIAL.unk)];
  if (word.length > MAX_WORD_CHARACTERS) return unknown;
  const pieces = [];
  for (let start = 0; start < word.length;) {
    let end = word.length, id;
    for (; end > start; end--) {
      id = ids.get((start > 0 ? '##' : '') + word.slice(start, end));
      if (id !== undefined) break;
    }
    if (end === start) return unknown;
    pieces.push(id);
    start = end;
  }
  return pieces;
}

/** Token ids of ASCII text, with [CLS] first and [SEP] last; throws on any other character. */
export function tokenizeAscii(vocabLines, text) {
  const nonAscii = /[^\x00-\x7f]/.exec(text);
  if (nonAscii) throw new Error(`tokenizeAscii: non-ASCII character U+${nonAscii[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} at ${nonAscii.index}`);
  const ids = vocabularyOf(vocabLines);
  const out = [ids.get(SPECIAL.cls)];
  for (const part of text.split(SPECIAL_PATTERN)) {
    if (SPECIAL_TOKENS.includes(part)) out.push(ids.get(part));
    else for (const word of basicTokens(part)) out.push(...wordPieces(word, ids));
  }
  out.push(ids.get(SPECIAL.sep));
  return out;
}
