// The converter's refusal: a message for the command line, and a reason the page words itself.
// Its own module, so that the converter core and its readers (torch-checkpoint.mjs,
// tokenizer-json.mjs) all import it without importing each other.

// reason: [message catalogue key, placeholders] for a refusal the page words itself (web/src/i18n).
export class ConvertError extends Error {
  constructor(message, reason = null) {
    super(message);
    this.reason = reason;
  }
}

export const fail = (message, reason) => { throw new ConvertError(message, reason); };
