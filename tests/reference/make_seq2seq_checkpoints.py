#!/usr/bin/python3
"""Write tiny random-weight encoder-decoder checkpoints (T5, BART, mBART, Marian) and their
independent PyTorch reference outputs (issue 20).

Usage: make_seq2seq_checkpoints.py --out DIR [--case NAME ...] [--no-reference] [--shared DIR]

Creates DIR/seq2seq/<case>/ (config.json, model.safetensors) for every case in CASES,
DIR/seq2seq/manifest.json, then runs seq2seq_reference.py so each input also gets
reference_<k>.safetensors (tensor list in that file's docstring). A CTest FIXTURES_SETUP step
(seq2seq_checkpoints); the C++ parity test reads the manifest and compares with the references.

Cases with a "tokenizer" also get tokenizer files, so text can be typed into them (the CLI's
--text/--target tests, the GUI): bart_tok_f32 has a byte-level BPE in RoBERTa's layout, as BART
uses RoBERTa's tokenizer (tokenizer_files.write_bpe_files; its vocabulary size is the model's).
With --shared DIR (the folder holding data/tokenizers) the SHARED_CASES are written too:
marian_enmg carries opus-mt-en-mg's real source.spm / target.spm / vocab.json, so its vocabulary
is the real one (54688) with tiny random layers.

The rules as implemented (read from transformers' modeling_{t5,bart,mbart,marian}.py, 4.5x):

T5 (T5ForConditionalGeneration, T5Model)
- Embedding: shared[ids], no scale, no absolute positions. Pre-norm blocks, RMS norm
  (x * rsqrt(mean(x^2) + eps) * weight, no mean, no bias, eps layer_norm_epsilon), no biases in
  any linear: x += o(attn(LN(x))); decoder: x += o(cross(LN(x), encoder_out)); x += ff(LN(x)).
  Each stack ends with final_layer_norm; the encoder's is the encoder output.
- Scores are q.k^T with NO 1/sqrt(d_kv) scale, plus a position bias [H, Tq, Tk]. d_kv * heads
  need not equal d_model.
- Position bias: relative_attention_bias [buckets, H] lives in block 0 of each stack only and every
  block of that stack adds the same bias. rel = key - query. Encoder (bidirectional): buckets
  are halved, keys after the query use the upper half (+buckets/2), n = |rel|. Decoder (causal):
  n = max(query - key, 0), all buckets. max_exact = (buckets in use) / 2; n < max_exact is its
  own bucket, else max_exact + floor(log(n / max_exact) / log(max_distance / max_exact) *
  (buckets_in_use - max_exact)) capped at buckets_in_use - 1 (float32 log, as HF).
  Cross-attention has no position bias.
- FFN: "relu" (v1.0) wo(relu(wi x)); "gated-gelu" (v1.1) wo(gelu_new(wi_0 x) * wi_1 x); the
  config's dense_act_fn names the activation (gated-gelu maps to gelu_new, the tanh form).
- LM head: tied (tie_word_embeddings true, the default) -> (h * d_model^-0.5) @ shared^T;
  untied -> h @ lm_head^T with no rescale. No final_logits_bias. T5Model has no head.
BART (BartForConditionalGeneration)
- Embedding: shared[ids] * (sqrt(d_model) if scale_embedding else 1) + embed_positions[pos + 2]
  (table has max_position_embeddings + 2 rows), then layernorm_embedding (LayerNorm, eps 1e-5).
- Post-LN layers: x = LN(x + attn(x)); decoder x = LN(x + cross(x, enc)); x = LN(x + fc2(act(fc1
  x))). No final norm: the last layer's output is the stack's output. All linears have biases.
- Scores: q.k^T * head_dim^-0.5 (head_dim = d_model / heads; encoder and decoder head counts may
  differ). LM head: h @ W^T + final_logits_bias[0], W = shared (tied) or lm_head.weight.
mBART: as BART but pre-LN (x = x + attn(LN(x)), the same for cross and FFN) with a final
  encoder.layer_norm / decoder.layer_norm; keeps layernorm_embedding; positions offset 2.
Marian (MarianMTModel): as BART (post-LN) without layernorm_embedding, positions sinusoidal with
  no offset: row p, column k < ceil(d/2) is sin(p / 10000^(2k/d)), column ceil(d/2) + k is
  cos(p / 10000^(2k/d)) for k < floor(d/2) (halves, not interleaved; float64 then float32).
  The table is stored in old checkpoints and absent from what save_pretrained writes today.
  Activation "swish" = SiLU. scale_embedding true. pad = decoder_start = vocab_size - 1.
  Untied: share_encoder_decoder_embeddings true with tie_word_embeddings false keeps lm_head
  separate (MarianMTModel.tie_weights honours tie_word_embeddings); final_logits_bias as BART.
Masks (all models): encoder keys that are source padding are masked for encoder self-attention
and cross-attention; decoder self-attention is causal (key <= query). Masked cells keep their
score in *_logits and get probability 0. Source padding sits at the end, so no position shifts.
"""

import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_layouts  # noqa: E402
import reference_main  # noqa: E402
import seq2seq_layouts  # noqa: E402
import st_io  # noqa: E402
import tokenizer_files  # noqa: E402

# inputs: (S, T, source_padding); S counts the pads. Every case has S=T=1, a long pair (T5: past
# max_distance so the logarithmic and capped buckets are used) and a padded source.
CASES = [
    dict(case="t5_v10_f32", arch="t5", arch_class="T5ForConditionalGeneration", dtype="F32",
         d_model=14, d_kv=5, heads=3, d_ff=23, enc_layers=2, dec_layers=2, buckets=8,
         max_distance=20, ff="relu", tied=True, vocab=53,
         inputs=[(1, 1, 0), (23, 21, 0), (9, 5, 3), (6, 8, 0)]),
    dict(case="t5_v11_bf16", arch="t5", arch_class="T5ForConditionalGeneration", dtype="BF16",
         d_model=10, d_kv=6, heads=2, d_ff=17, enc_layers=3, dec_layers=2, buckets=6,
         max_distance=12, ff="gated-gelu", tied=False, vocab=61,
         inputs=[(1, 1, 0), (17, 14, 0), (8, 6, 2)]),
    dict(case="t5_model_f16", arch="t5", arch_class="T5Model", dtype="F16", d_model=12, d_kv=7,
         heads=2, d_ff=19, enc_layers=2, dec_layers=3, buckets=10, max_distance=16, ff="relu",
         tied=True, vocab=57, inputs=[(1, 1, 0), (19, 18, 0), (7, 4, 2)]),
    dict(case="bart_f32", arch="bart", arch_class="BartForConditionalGeneration", dtype="F32",
         d_model=12, enc_heads=3, dec_heads=2, enc_layers=2, dec_layers=3, enc_ffn=19,
         dec_ffn=21, act="gelu", max_pos=24, scale_embedding=False, tied=True, vocab=59,
         embed_std=1.0, inputs=[(1, 1, 0), (24, 22, 0), (10, 6, 4), (5, 9, 0)]),
    dict(case="mbart_f16", arch="mbart", arch_class="MBartForConditionalGeneration",
         dtype="F16", d_model=16, enc_heads=4, dec_heads=4, enc_layers=2, dec_layers=2,
         enc_ffn=27, dec_ffn=25, act="relu", max_pos=32, scale_embedding=True, tied=True,
         vocab=67, embed_std=0.25, inputs=[(1, 1, 0), (20, 17, 0), (9, 7, 3)]),
    dict(case="marian_f32", arch="marian", arch_class="MarianMTModel", dtype="F32", d_model=12,
         enc_heads=3, dec_heads=3, enc_layers=2, dec_layers=2, enc_ffn=20, dec_ffn=22,
         act="swish", max_pos=30, scale_embedding=True, tied=True, stored_table=True, vocab=63,
         embed_std=0.3, inputs=[(1, 1, 0), (26, 19, 0), (8, 6, 2), (4, 11, 0)]),
    dict(case="marian_untied_bf16", arch="marian", arch_class="MarianMTModel", dtype="BF16",
         d_model=10, enc_heads=2, dec_heads=2, enc_layers=2, dec_layers=3, enc_ffn=18,
         dec_ffn=15, act="swish", max_pos=28, scale_embedding=True, tied=False,
         stored_table=False, vocab=55, embed_std=0.3,
         inputs=[(1, 1, 0), (21, 15, 0), (9, 5, 4)]),
    # vocab is set from the tokenizer written beside the checkpoint (write_tokenizer).
    dict(case="bart_tok_f32", arch="bart", arch_class="BartForConditionalGeneration",
         dtype="F32", d_model=16, enc_heads=2, dec_heads=4, enc_layers=2, dec_layers=2,
         enc_ffn=24, dec_ffn=20, act="gelu", max_pos=40, scale_embedding=False, tied=True,
         vocab=None, embed_std=1.0, tokenizer="roberta",
         inputs=[(1, 1, 0), (12, 9, 0), (8, 5, 3)]),
]
# Written only with --shared: the tokenizer files come from DIR/data/tokenizers/<shared>.
SHARED_CASES = [
    dict(case="marian_enmg", arch="marian", arch_class="MarianMTModel", dtype="F32", d_model=16,
         enc_heads=2, dec_heads=2, enc_layers=1, dec_layers=1, enc_ffn=24, dec_ffn=24,
         act="swish", max_pos=64, scale_embedding=True, tied=True, stored_table=False,
         vocab=54688, embed_std=0.3, shared="opus-mt-en-mg",
         shared_files=["source.spm", "target.spm", "vocab.json", "tokenizer_config.json"],
         inputs=[(1, 1, 0), (10, 7, 0), (6, 4, 2)]),
]
BASE_SEED = 20261202


def make_inputs(c, rng):
    """Source: ordinary ids framed as the tokenizer would ([bos] .. [eos] for BART/mBART, .. [eos]
    for T5/Marian; a length-1 source is [eos]), then the padding. Decoder: the start token, then
    ordinary ids (decoder inputs as given, no shifting)."""
    s = seq2seq_layouts.specials_of(c)
    ordinary = np.array([i for i in range(c["vocab"]) if i not in set(s.values())])
    start = seq2seq_layouts.decoder_start_of(c)
    out = []
    for n_src, n_dec, pad in c["inputs"]:
        real = n_src - pad
        src = [int(i) for i in rng.choice(ordinary, size=real)]
        src[-1] = s["eos"]
        if "bos" in s and real > 1:
            src[0] = s["bos"]
        src += [s["pad"]] * pad
        dec = [start] + [int(i) for i in rng.choice(ordinary, size=n_dec - 1)]
        out.append({"source": src, "decoder": dec, "source_padding": pad})
    return out


def heads_of(c):
    if c["arch"] == "t5":
        return c["heads"], c["heads"]
    return c["enc_heads"], c["dec_heads"]


def write_tokenizer(c, folder, shared_dir):
    """Tokenizer files for a case that has them; returns the case with its vocabulary size."""
    if c.get("tokenizer") == "roberta":
        size, special = tokenizer_files.write_bpe_files(folder, "roberta", c["max_pos"])
        # The config names BART's special ids; the tokenizer must give the same ones.
        expected = seq2seq_layouts.BART_SPECIALS
        if any(special[k] != v for k, v in expected.items()):
            raise SystemExit(f"{c['case']}: tokenizer specials {special} differ from {expected}")
        return dict(c, vocab=size)
    if "shared" in c:
        source = os.path.join(shared_dir, "data", "tokenizers", c["shared"])
        for name in c["shared_files"]:
            shutil.copyfile(os.path.join(source, name), os.path.join(folder, name))
        with open(os.path.join(source, "vocab.json"), encoding="utf-8") as f:
            size = max(json.load(f).values()) + 1
        if size != c["vocab"]:
            raise SystemExit(f"{c['case']}: {source}/vocab.json has {size} ids, not {c['vocab']}")
    return c


def write_case(c, root, seed, shared_dir=None):
    """Write one checkpoint folder and return its manifest entry."""
    folder = os.path.join(root, c["case"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    c = write_tokenizer(c, folder, shared_dir)
    config = seq2seq_layouts.config_of(c)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")
    weights = seq2seq_layouts.weights_of(dict(c, seed=seed))
    st_io.save_file(hf_layouts.cast_for_storage(weights, c["dtype"]),
                    os.path.join(folder, "model.safetensors"), {"format": "pt"})
    inputs = make_inputs(c, np.random.RandomState(seed + 1))
    enc_heads, dec_heads = heads_of(c)
    return {
        "case": c["case"],
        "model_type": config["model_type"],
        "architecture": c["arch_class"],
        "dtype": c["dtype"],
        "encoder_layers": c["enc_layers"],
        "decoder_layers": c["dec_layers"],
        "encoder_heads": enc_heads,
        "decoder_heads": dec_heads,
        "d_model": c["d_model"],
        "vocab_size": c["vocab"],
        "has_lm_head": c["arch_class"] != "T5Model",
        "decoder_start_token_id": config["decoder_start_token_id"],
        "inputs": inputs,
        "references": [f"reference_{k}.safetensors" for k in range(len(inputs))],
    }


def write_all(out_dir, selected=None, shared_dir=None):
    """Write every (or each selected) case and the manifest; returns the manifest list.
    SHARED_CASES join when shared_dir is given and holds data/tokenizers."""
    root = os.path.join(out_dir, "seq2seq")
    os.makedirs(root, exist_ok=True)
    cases = list(CASES)
    if shared_dir and os.path.isdir(os.path.join(shared_dir, "data", "tokenizers")):
        cases += SHARED_CASES
    manifest = [write_case(c, root, BASE_SEED + 100 * i, shared_dir) for i, c in enumerate(cases)
                if not selected or c["case"] in selected]
    return reference_main.write_manifest(root, manifest)


def main():
    reference_main.checkpoints_main(
        __doc__, "seq2seq", "seq2seq checkpoints",
        lambda args: write_all(args.out, args.case, args.shared), "seq2seq_reference",
        [("--shared", "folder with data/tokenizers: also write SHARED_CASES")])


if __name__ == "__main__":
    main()
