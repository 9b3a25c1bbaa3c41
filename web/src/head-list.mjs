// The one grammar of a list of heads, read the same by the page (`off=` in the address, the
// `off` attribute) and the command line (`--ablate`, c/cli.c parse_head_list):
//
//   list  = [ item { "," item } ]      spaces and tabs allowed around items and commas
//   item  = LAYER "." HEAD [ "-" HEAD ]  numbers of 1 to 4 digits, counted from 1; L.A-B is
//                                        heads A to B of layer L (A ≤ B)
//
// A head named twice (directly or through a range) is refused by name, as is an empty item
// (",," or a trailing comma) and a list of more than HEAD_LIST_MAX heads. An empty or blank
// list names no head. Whether each head exists is the model's question, asked after.
// tests/fixtures/head-lists.json holds the cases both readers are held to.

export const HEAD_LIST_MAX = 144;  // 12 layers × 12 heads; c/cli.c MAX_REMOVED

const ITEM = /^(\d{1,4})\.(\d{1,4})(?:-(\d{1,4}))?$/;

/**
 * "2.1, 3.1-3" → { heads: [[2, 1], [3, 1], [3, 2], [3, 3]] } (1-based, in the order given), or
 * { error: 'syntax' | 'reversed' | 'twice' | 'many', item } naming the first item at fault.
 */
export function parseHeadList(text) {
  const source = String(text);
  if (/^[ \t]*$/.test(source)) return { heads: [] };
  const heads = [];
  const seen = new Set();
  for (const raw of source.split(',')) {
    const item = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    const match = ITEM.exec(item);
    if (!match) return { error: 'syntax', item };
    const layer = Number(match[1]);
    const first = Number(match[2]);
    const last = match[3] === undefined ? first : Number(match[3]);
    if (last < first) return { error: 'reversed', item };
    for (let head = first; head <= last; head++) {
      const key = `${layer}.${head}`;
      if (seen.has(key)) return { error: 'twice', item: key };
      if (heads.length === HEAD_LIST_MAX) return { error: 'many', item };
      seen.add(key);
      heads.push([layer, head]);
    }
  }
  return { heads };
}
