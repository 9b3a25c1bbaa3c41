#!/usr/bin/env python3
"""Writes tests/fixtures/torch/: small pytorch_model.bin checkpoints as torch.save writes them,
each next to the same weights as safetensors (written here by hand, the format is a JSON header
and the raw bytes), so that the converter's .bin reading is tested against its safetensors
reading with no Python in the test suite. Run once; the output is committed.

    apt-get install -y python3-torch libopenblas0-pthread
    /usr/bin/python3 tools/make-torch-fixtures.py

The weights are random but on the per-row int8 grid with power-of-two scales, vectors with 8
significant bits, so that F16 and BF16 hold them exactly and an int8 conversion is exact: every
variant must then give the very same weights file as the safetensors twin.
"""
import json
import os
import pickle
import shutil
import struct

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'torch')
SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
WORDS = ['.', ',', 'the', 'cat', 'sat', 'on', 'mat', 'a', 'dog', 'ran', 'to', 'park', 'and', 'saw', 'bird',
         'in', 'tree', 'it', 'was', 'happy', 'because', 'tired', '##s', '##ing', '##ed', 'caf', '##e']
CONFIG = {
    'architectures': ['BertForMaskedLM'], 'model_type': 'bert', 'vocab_size': 100, 'hidden_size': 32,
    'num_hidden_layers': 2, 'num_attention_heads': 2, 'intermediate_size': 64, 'max_position_embeddings': 32,
    'type_vocab_size': 2, 'layer_norm_eps': 1e-12, 'hidden_act': 'gelu', 'position_embedding_type': 'absolute',
}


def vocab_lines():
    lines = SPECIAL + WORDS
    i = 0
    while len(lines) < CONFIG['vocab_size']:
        lines.append('filler%d' % i)
        i += 1
    return lines


def shapes():
    v, h, f = CONFIG['vocab_size'], CONFIG['hidden_size'], CONFIG['intermediate_size']
    out = [('bert.embeddings.word_embeddings.weight', [v, h]),
           ('bert.embeddings.position_embeddings.weight', [CONFIG['max_position_embeddings'], h]),
           ('bert.embeddings.token_type_embeddings.weight', [CONFIG['type_vocab_size'], h]),
           ('bert.embeddings.LayerNorm.weight', [h]), ('bert.embeddings.LayerNorm.bias', [h])]
    for i in range(CONFIG['num_hidden_layers']):
        p = 'bert.encoder.layer.%d.' % i
        for n in ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']:
            out += [(p + n + '.weight', [h, h]), (p + n + '.bias', [h])]
        out += [(p + 'attention.output.LayerNorm.weight', [h]), (p + 'attention.output.LayerNorm.bias', [h]),
                (p + 'intermediate.dense.weight', [f, h]), (p + 'intermediate.dense.bias', [f]),
                (p + 'output.dense.weight', [h, f]), (p + 'output.dense.bias', [h]),
                (p + 'output.LayerNorm.weight', [h]), (p + 'output.LayerNorm.bias', [h])]
    out += [('cls.predictions.transform.dense.weight', [h, h]), ('cls.predictions.transform.dense.bias', [h]),
            ('cls.predictions.transform.LayerNorm.weight', [h]), ('cls.predictions.transform.LayerNorm.bias', [h]),
            ('cls.predictions.bias', [v])]
    return out


def random_weights(seed):
    g = torch.Generator().manual_seed(seed)
    weights = {}
    for name, shape in shapes():
        if len(shape) == 2:
            spread = 1.0 if 'embeddings' in name else (2.6 if ('query' in name or 'key' in name) else 1.7) / shape[1] ** 0.5
            scale = 2.0 ** -round(__import__('math').log2(127 / spread))
            q = torch.randint(-127, 128, shape, generator=g).float()
            peak = torch.randint(0, shape[1], (shape[0],), generator=g)
            q[torch.arange(shape[0]), peak] = 127.0
            weights[name] = q * scale
        else:
            center = 1.0 if name.endswith('LayerNorm.weight') else 0.0
            k = torch.randint(-24 if center else -12, 25 if center else 13, shape, generator=g).float()
            weights[name] = center + k / 128
    return weights


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    codes = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16'}
    for name, t in tensors.items():
        t = t.contiguous()
        data = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
        header[name] = {'dtype': codes[t.dtype], 'shape': list(t.shape), 'data_offsets': [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def folder(name, config=CONFIG, vocab=True):
    path = os.path.join(ROOT, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    with open(os.path.join(path, 'config.json'), 'w') as f:
        json.dump(config, f, indent=2)
    if vocab:
        with open(os.path.join(path, 'vocab.txt'), 'w') as f:
            f.write('\n'.join(vocab_lines()) + '\n')
    return path


def masked_lm_state(weights, dtype=torch.float32):
    """As BertForMaskedLM.state_dict() gives it: position_ids, a decoder tied to the word
    embeddings (one storage), the query weight of layer 0 stored transposed, the word embeddings
    a slice of a larger storage, a LayerNorm bias a slice of a vector."""
    state = {}
    for name, value in weights.items():
        state[name] = value.to(dtype)
    v, h = CONFIG['vocab_size'], CONFIG['hidden_size']
    big = torch.zeros(v + 3, h, dtype=dtype)
    big[2:2 + v] = state['bert.embeddings.word_embeddings.weight']
    state['bert.embeddings.word_embeddings.weight'] = big[2:2 + v]
    q = 'bert.encoder.layer.0.attention.self.query.weight'
    state[q] = state[q].t().contiguous().t()
    ln = 'bert.embeddings.LayerNorm.bias'
    wide = torch.zeros(3 * h, dtype=dtype)
    wide[h:2 * h] = state[ln]
    state[ln] = wide[h:2 * h]
    state['bert.embeddings.position_ids'] = torch.arange(CONFIG['max_position_embeddings']).unsqueeze(0)
    state['cls.predictions.decoder.weight'] = state['bert.embeddings.word_embeddings.weight']
    state['cls.predictions.decoder.bias'] = state['cls.predictions.bias']
    return state


def pretraining_state(weights, g):
    """BertForPreTraining as Google's checkpoints converted to .bin have it: gamma/beta names,
    the pooler and the next-sentence head."""
    state = {}
    for name, value in masked_lm_state(weights).items():
        state[name.replace('LayerNorm.weight', 'LayerNorm.gamma').replace('LayerNorm.bias', 'LayerNorm.beta')] = value
    h = CONFIG['hidden_size']
    state['bert.pooler.dense.weight'] = torch.randn(h, h, generator=g)
    state['bert.pooler.dense.bias'] = torch.randn(h, generator=g)
    state['cls.seq_relationship.weight'] = torch.randn(2, h, generator=g)
    state['cls.seq_relationship.bias'] = torch.randn(2, generator=g)
    return state


def save(state, path, legacy=False):
    from collections import OrderedDict
    torch.save(OrderedDict(state), path, _use_new_zipfile_serialization=not legacy)


def tokenizer_json(lines):
    specials = [{'id': lines.index(t), 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False,
                 'normalized': False, 'special': True} for t in SPECIAL]
    return {
        'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': specials,
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {'type': 'TemplateProcessing',
                           'single': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                                      {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}],
                           'pair': [], 'special_tokens': {}},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': {t: i for i, t in enumerate(lines)}},
    }


class Call:
    """Pickles as a call of fn(*args): what a hostile checkpoint carries."""
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


def main():
    weights = random_weights(18)
    g = torch.Generator().manual_seed(19)
    os.makedirs(ROOT, exist_ok=True)
    write_safetensors(os.path.join(ROOT, 'twin.safetensors'), weights)

    save(masked_lm_state(weights), os.path.join(folder('zip'), 'pytorch_model.bin'))
    save(masked_lm_state(weights), os.path.join(folder('legacy'), 'pytorch_model.bin'), legacy=True)
    save(masked_lm_state(weights, torch.bfloat16), os.path.join(folder('bfloat16'), 'pytorch_model.bin'), legacy=True)
    # Laid out as google/bert_uncased_L-4_H-256_A-4's page: config.json, vocab.txt, pytorch_model.bin.
    google = dict(CONFIG, architectures=None)
    del google['architectures'], google['position_embedding_type']
    save(pretraining_state(weights, g), os.path.join(folder('google-zip', google), 'pytorch_model.bin'))
    save(pretraining_state(weights, g), os.path.join(folder('google-legacy', google), 'pytorch_model.bin'), legacy=True)
    path = folder('tokenizer-json', vocab=False)
    with open(os.path.join(path, 'tokenizer.json'), 'w') as f:
        json.dump(tokenizer_json(vocab_lines()), f, indent=1)
    save({k: v.to(torch.float16) for k, v in weights.items()}, os.path.join(path, 'pytorch_model.bin'))

    # A BertModel (no masked-LM head) saved with the names it has on its own: no "bert." prefix.
    bare = {k[len('bert.'):]: v.to(torch.float16) for k, v in weights.items() if k.startswith('bert.')}
    save(bare, os.path.join(folder('bare', dict(CONFIG, architectures=['BertModel'])), 'pytorch_model.bin'), legacy=True)

    hostile = folder('hostile')
    torch.save(Call(os.system, ('echo pickle-ran > /tmp/attn-pickle-ran',)), os.path.join(hostile, 'pytorch_model.bin'))
    torch.save({'a': Call(eval, ('1+1',))}, os.path.join(hostile, 'eval.bin'), _use_new_zipfile_serialization=False)
    with open(os.path.join(hostile, 'system.pkl'), 'wb') as f:
        pickle.dump(Call(os.system, ('true',)), f, protocol=2)
    total = sum(os.path.getsize(os.path.join(d, n)) for d, _, files in os.walk(ROOT) for n in files)
    print('wrote %s: %d bytes' % (ROOT, total))


if __name__ == '__main__':
    main()
