// A float32 BERT encoder as an ONNX model (opset 17), written from a checkpoint's tensors
// without torch: the peer that onnxruntime-web runs on the same weights as our engine, for
// bench/scale.mjs. The graph is the textbook one (as torch.onnx.export writes BertModel):
//
//   x = LayerNorm(word[ids] + position[positions] + type[types])
//   per layer: q, k, v = x·Wᵀ + b; softmax(q·kᵀ/√d) per head; x = LayerNorm(x + (P·v)·Woᵀ + bo);
//              x = LayerNorm(x + GELU(x·W1ᵀ + b1)·W2ᵀ + b2)   (GELU in its erf form)
//
// Inputs input_ids, position_ids, token_type_ids (int64 [1, n]); output last_hidden_state
// [1, n, hidden]. Weight matrices are stored transposed ([in][out]) so that every product is a
// plain MatMul. Bench-only: nothing in the product or the tests reads it.

// ---------------------------------------------------------------- protobuf (the fields ONNX uses)

function varint(value) {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;
  const bytes = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    bytes.push(b);
  } while (v);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytesField = (field, payload) => {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.concat(payload);
  return Buffer.concat([key(field, 2), varint(body.length), body]);
};
const str = (field, text) => bytesField(field, Buffer.from(text, 'utf8'));
const float32 = (field, value) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(value);
  return Buffer.concat([key(field, 5), b]);
};

const FLOAT = 1, INT64 = 7;
const ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_INTS = 7;

function tensor(name, dims, dataType, raw) {
  return [...dims.map((d) => int(1, d)), int(2, dataType), str(8, name), bytesField(9, raw)];
}

function attribute(name, value) {
  if (Array.isArray(value)) return bytesField(5, [str(1, name), ...value.map((v) => int(8, v)), int(20, ATTR_INTS)]);
  if (Number.isInteger(value.int)) return bytesField(5, [str(1, name), int(3, value.int), int(20, ATTR_INT)]);
  return bytesField(5, [str(1, name), float32(2, value.float), int(20, ATTR_FLOAT)]);
}

function valueInfo(name, elemType, dims) {
  const shape = dims.map((d) => bytesField(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  const tensorType = [int(1, elemType), bytesField(2, shape)];
  return Buffer.concat([str(1, name), bytesField(2, bytesField(1, tensorType))]);
}

// ---------------------------------------------------------------- the graph

/** Float32Array [rows][cols] → its transpose's bytes. */
function transposed(values, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c];
  return Buffer.from(out.buffer);
}

const floats = (values) => Buffer.from(Float32Array.from(values).buffer);
const int64s = (values) => Buffer.from(BigInt64Array.from(values.map(BigInt)).buffer);

/**
 * The ONNX model bytes for the encoder of a BertForMaskedLM checkpoint: `config` its
 * config.json object, `tensors` a Map from the Hugging Face names to Float32Array.
 */
export function bertEncoderOnnx(config, tensors) {
  const H = config.hidden_size, F = config.intermediate_size, heads = config.num_attention_heads, d = H / heads;
  const eps = config.layer_norm_eps ?? 1e-12;
  const nodes = [], inits = [];
  let serial = 0;
  const fresh = (stem) => `${stem}_${serial++}`;
  const get = (name) => {
    const t = tensors.get(name);
    if (!t) throw new Error(`onnx-bert: the checkpoint has no ${name}`);
    return t;
  };
  const init = (name, dims, raw, type = FLOAT) => { inits.push(bytesField(5, tensor(name, dims, type, raw))); return name; };
  const node = (op, inputs, attributes = {}, outputs = [fresh(op)]) => {
    nodes.push(bytesField(1, [...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, fresh(`n_${op}`)),
      str(4, op), ...Object.entries(attributes).map(([k, v]) => attribute(k, v))]));
    return outputs[0];
  };
  const weight = (name, rows, cols) => init(name, [cols, rows], transposed(get(name), rows, cols));
  const vector = (name) => init(name, [get(name).length], floats(get(name)));
  const linear = (x, prefix, rows, cols) => node('Add', [node('MatMul', [x, weight(`${prefix}.weight`, rows, cols)]), vector(`${prefix}.bias`)]);
  const layerNorm = (x, prefix) => node('LayerNormalization', [x, vector(`${prefix}.weight`), vector(`${prefix}.bias`)],
    { axis: { int: -1 }, epsilon: { float: eps } });

  const e = 'bert.embeddings.';
  const table = (name) => init(name, [get(name).length / H, H], Buffer.from(get(name).buffer, get(name).byteOffset, get(name).byteLength));
  const sum = node('Add', [node('Add', [node('Gather', [table(`${e}word_embeddings.weight`), 'input_ids']),
    node('Gather', [table(`${e}position_embeddings.weight`), 'position_ids'])]),
  node('Gather', [table(`${e}token_type_embeddings.weight`), 'token_type_ids'])]);
  let x = layerNorm(sum, `${e}LayerNorm`);

  const splitHeads = init('split_heads', [4], int64s([0, -1, heads, d]), INT64);
  const joinHeads = init('join_heads', [3], int64s([0, -1, H]), INT64);
  const scale = init('score_scale', [], floats([1 / Math.sqrt(d)]));
  const [half, one, root2] = [init('half', [], floats([0.5])), init('one', [], floats([1])), init('sqrt2', [], floats([Math.SQRT2]))];
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `bert.encoder.layer.${l}.`;
    const heads4 = (name, perm) => node('Transpose', [node('Reshape', [linear(x, `${p}attention.self.${name}`, H, H), splitHeads])], { perm });
    const q = heads4('query', [0, 2, 1, 3]), k = heads4('key', [0, 2, 3, 1]), v = heads4('value', [0, 2, 1, 3]);
    const probs = node('Softmax', [node('Mul', [node('MatMul', [q, k]), scale])], { axis: { int: -1 } });
    const context = node('Reshape', [node('Transpose', [node('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }), joinHeads]);
    x = layerNorm(node('Add', [x, linear(context, `${p}attention.output.dense`, H, H)]), `${p}attention.output.LayerNorm`);
    const inner = linear(x, `${p}intermediate.dense`, F, H);
    const gelu = node('Mul', [node('Mul', [inner, half]), node('Add', [node('Erf', [node('Div', [inner, root2])]), one])]);
    x = layerNorm(node('Add', [x, linear(gelu, `${p}output.dense`, H, F)]), `${p}output.LayerNorm`);
  }
  node('Identity', [x], {}, ['last_hidden_state']);

  const graph = [...nodes, str(2, 'bert_encoder'), ...inits,
    ...['input_ids', 'position_ids', 'token_type_ids'].map((name) => bytesField(11, valueInfo(name, INT64, [1, 'n']))),
    bytesField(12, valueInfo('last_hidden_state', FLOAT, [1, 'n', H]))];
  return Buffer.concat([int(1, 8), str(2, 'attention-explorer bench/onnx-bert.mjs'), bytesField(7, graph),
    bytesField(8, [str(1, ''), int(2, 17)])]);
}
