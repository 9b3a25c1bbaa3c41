// Writing small Hugging Face checkpoints for tests: the tensor shapes a BERT masked-LM
// config implies, and the safetensors file format. Written independently of the converter,
// so that the converter's own shape checks are tested against a second reading of the format.
import fs from 'node:fs';

/** { name: shape } for every tensor of a BertForMaskedLM with this config, in a fixed order. */
export function bertTensorShapes(config) {
  const [v, h, f] = [config.vocab_size, config.hidden_size, config.intermediate_size];
  const shapes = {
    'bert.embeddings.word_embeddings.weight': [v, h],
    'bert.embeddings.position_embeddings.weight': [config.max_position_embeddings, h],
    'bert.embeddings.token_type_embeddings.weight': [config.type_vocab_size, h],
    'bert.embeddings.LayerNorm.weight': [h], 'bert.embeddings.LayerNorm.bias': [h],
  };
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const p = `bert.encoder.layer.${i}.`;
    for (const n of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
      shapes[`${p}${n}.weight`] = [h, h];
      shapes[`${p}${n}.bias`] = [h];
    }
    Object.assign(shapes, {
      [`${p}attention.output.LayerNorm.weight`]: [h], [`${p}attention.output.LayerNorm.bias`]: [h],
      [`${p}intermediate.dense.weight`]: [f, h], [`${p}intermediate.dense.bias`]: [f],
      [`${p}output.dense.weight`]: [h, f], [`${p}output.dense.bias`]: [h],
      [`${p}output.LayerNorm.weight`]: [h], [`${p}output.LayerNorm.bias`]: [h],
    });
  }
  Object.assign(shapes, {
    'cls.predictions.transform.dense.weight': [h, h], 'cls.predictions.transform.dense.bias': [h],
    'cls.predictions.transform.LayerNorm.weight': [h], 'cls.predictions.transform.LayerNorm.bias': [h],
    'cls.predictions.bias': [v],
  });
  return shapes;
}

/** Writes tensors [{name, shape, bytes, dtype = 'F32'}] as a safetensors file. */
export function writeSafetensors(file, tensors) {
  const header = {};
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype ?? 'F32', shape: t.shape, data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([length, Buffer.from(json), ...tensors.map((t) => t.bytes)]));
}
