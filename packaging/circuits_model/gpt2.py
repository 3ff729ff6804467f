"""A small GPT-2 causal LM in plain torch, with parameter names equal to Hugging Face's
GPT2LMHeadModel (Conv1D weights stored [in, out], query|key|value fused in c_attn, pre-norm,
learned positions, final ln_f, LM head tied to wte), so the state dict is written out unchanged
(no `transformers` on Debian 12). Also the config.json writer, the F16 export and its reader.

The forward can hand back what the analyses need: every layer's attention probabilities and
each head's output before c_proj (z, TransformerLens's hook_z).
"""

import json
import math

import torch
from torch import nn
import torch.nn.functional as F

from default_recipe import load_safetensors, save_safetensors

LN_EPS = 1e-5  # GPT2Config.layer_norm_epsilon


class Conv1D(nn.Module):
    """HF's transformers.pytorch_utils.Conv1D: y = x @ weight + bias, weight [in, out]."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        out = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight)
        return out.view(*x.shape[:-1], -1)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)

    def forward(self, x, mask_bias, want=False, ablate=()):
        b, n, d = x.shape
        nh, hd = self.heads, d // self.heads
        q, k, v = self.c_attn(x).split(d, dim=-1)
        # 3-D bmm over (batch * heads): Debian's torch 1.13 is much slower on the backward of a
        # 4-D matmul (packaging/default_model/README.md).
        split = lambda t: t.view(b, n, nh, hd).transpose(1, 2).reshape(b * nh, n, hd)
        q, k, v = split(q), split(k), split(v)
        logits = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(hd) + mask_bias[:n, :n]
        probs = logits.softmax(-1)
        z = torch.bmm(probs, v).view(b, nh, n, hd)
        if ablate:  # zero-ablation: these heads write nothing (their z is 0 before c_proj)
            keep = torch.ones(nh)
            keep[list(ablate)] = 0.0
            z = z * keep[None, :, None, None]
        out = self.c_proj(z.transpose(1, 2).reshape(b, n, d))
        if want:
            return out, probs.view(b, nh, n, n), z
        return out, None, None


class MLP(nn.Module):
    def __init__(self, d, inner):
        super().__init__()
        self.c_fc = Conv1D(d, inner)
        self.c_proj = Conv1D(inner, d)

    def forward(self, x):
        # activation_function "gelu_new": the tanh approximation.
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, d, heads, inner):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=LN_EPS)
        self.attn = Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d, eps=LN_EPS)
        self.mlp = MLP(d, inner)


class GPT2Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["n_embd"]
        self.wte = nn.Embedding(c["vocab_size"], d)
        self.wpe = nn.Embedding(c["n_positions"], d)
        self.h = nn.ModuleList(Block(d, c["n_head"], c["n_inner"]) for _ in range(c["n_layer"]))
        self.ln_f = nn.LayerNorm(d, eps=LN_EPS)


def sinusoid_table(n, d, std=0.02):
    """Vaswani et al.'s sin/cos position table, scaled to entries of standard deviation std
    (GPT-2's N(0, 0.02) initial scale): a starting point for the learned positions in which
    "the position one back" is the same linear map at every position."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
    t = torch.zeros(n, d, dtype=torch.float64)
    t[:, 0::2] = torch.sin(pos * freq)
    t[:, 1::2] = torch.cos(pos * freq)
    return (t * std * math.sqrt(2.0)).float()


class GPT2LMHeadModel(nn.Module):
    def __init__(self, c, wpe_init="normal", init_std=0.02):
        super().__init__()
        self.config = c
        self.init_std = init_std
        self.transformer = GPT2Model(c)
        n = c["n_positions"]
        self.register_buffer("mask_bias", torch.full((n, n), -1e9).triu(1), persistent=False)
        self.apply(self._init)
        # GPT-2's scaled initialisation of the projections that write to the residual stream.
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, std=init_std / math.sqrt(2 * c["n_layer"]))
        if wpe_init == "sinusoidal":
            with torch.no_grad():
                # At the token embeddings' scale: at GPT-2's 0.02 against tokens' init_std the
                # positions were too faint for a previous-token head to form early.
                self.transformer.wpe.weight.copy_(sinusoid_table(n, c["n_embd"], init_std))

    def _init(self, m):
        if isinstance(m, (Conv1D, nn.Embedding)):
            nn.init.normal_(m.weight, std=self.init_std)
        if isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, ids, want=False, ablate=(), where=None):
        """Logits [b, n, vocab]; with want, also a dict of per-layer `probs` [b, heads, n, n],
        `z` [b, heads, n, head_dim] and the residual stream `resid` entering each layer and
        after the last (L + 1 tensors [b, n, d]). `ablate`: (layer, head) pairs whose output
        is zeroed. `where`: a [b, n] bool mask; then only the logits of those positions
        ([k, vocab]), as the vocabulary-wide unembedding is most of a step's time."""
        t = self.transformer
        x = t.wte(ids) + t.wpe(torch.arange(ids.shape[1]))[None]
        rec = {"probs": [], "z": [], "resid": []}
        for layer, block in enumerate(t.h):
            rec["resid"].append(x)
            heads = [h for l, h in ablate if l == layer]
            a, probs, z = block.attn(block.ln_1(x), self.mask_bias, want, heads)
            x = x + a
            x = x + block.mlp(block.ln_2(x))
            rec["probs"].append(probs)
            rec["z"].append(z)
        rec["resid"].append(x)
        if where is not None:  # training: only the positions that have a target
            return t.ln_f(x[where]) @ t.wte.weight.T
        logits = t.ln_f(x) @ t.wte.weight.T
        return (logits, rec) if want else logits


def hf_config(c, bos_id, eos_id, init_std=0.02):
    """config.json as GPT2Config.to_json_string writes it for this shape (no dropout was used in
    training; the dropout fields say so)."""
    return {
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.0,
        "bos_token_id": bos_id,
        "embd_pdrop": 0.0,
        "eos_token_id": eos_id,
        "initializer_range": init_std,
        "layer_norm_epsilon": LN_EPS,
        "model_type": "gpt2",
        "n_ctx": c["n_positions"],
        "n_embd": c["n_embd"],
        "n_head": c["n_head"],
        "n_inner": c["n_inner"],
        "n_layer": c["n_layer"],
        "n_positions": c["n_positions"],
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.0,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "tie_word_embeddings": True,
        "torch_dtype": "float16",
        "transformers_version": "4.46.3",
        "use_cache": True,
        "vocab_size": c["vocab_size"],
    }


def export(model, out_dir, bos_id, eos_id, metadata=None):
    """config.json + F16 model.safetensors; the tied lm_head.weight is left out, as
    save_pretrained leaves it out."""
    with open(f"{out_dir}/config.json", "w") as f:
        json.dump(hf_config(model.config, bos_id, eos_id, round(model.init_std, 5)), f,
                  indent=2, sort_keys=True)
        f.write("\n")
    tensors = {k: v.to(torch.float16) for k, v in model.state_dict().items()}
    save_safetensors(tensors, f"{out_dir}/model.safetensors", metadata or {"format": "pt"})


def load_exported(model_dir):
    """The torch model of an exported folder (weights upcast from F16 to F32), in eval mode."""
    with open(f"{model_dir}/config.json") as f:
        hf = json.load(f)
    c = {k: hf[k] for k in ("vocab_size", "n_embd", "n_head", "n_layer", "n_inner",
                            "n_positions")}
    model = GPT2LMHeadModel(c)
    state = {k: v.float() for k, v in load_safetensors(f"{model_dir}/model.safetensors").items()}
    model.load_state_dict(state)
    return model.eval()
