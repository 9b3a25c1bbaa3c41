// What a fuzzed converter input gives: a value, or the converter's own refusal with a message.
// Any other exception (a crash, a RangeError) fails the test. Every refusal must be a code of
// the converter's table (weights/convert-messages.mjs) with a French text in the page's
// catalogue, and its message must be that code's English text: the page phrases the same code.
import assert from 'node:assert/strict';
import { ConvertError } from '../../weights/convert-error.mjs';
import { CONVERT_REFUSALS_EN, phrase } from '../../weights/convert-messages.mjs';
import fr from '../../web/src/i18n/fr.mjs';

/** Asserts a ConvertError speaks through a code both catalogues phrase; returns its message. */
export function codedRefusal(error) {
  const [code, params] = error.reason ?? [];
  assert.ok(Object.hasOwn(CONVERT_REFUSALS_EN, code ?? ''), `a refusal without a code of the converter's table: ${error.message}`);
  assert.ok(typeof fr[code] === 'string', `${code}: no French text`);
  assert.equal(error.message, phrase(code, params), `${code}: the message is the code's English text`);
  return error.message;
}

export function refusedOr(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    assert.ok(e.message.length > 10, `a message: ${e.message}`);
    return { refused: codedRefusal(e) };
  }
}
