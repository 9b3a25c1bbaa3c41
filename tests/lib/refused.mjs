// What a fuzzed converter input gives: a value, or the converter's own refusal with a message.
// Any other exception (a crash, a RangeError) fails the test.
import assert from 'node:assert/strict';
import { ConvertError } from '../../weights/convert-error.mjs';

export function refusedOr(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    assert.ok(e.message.length > 10, `a message: ${e.message}`);
    return { refused: e.message };
  }
}
