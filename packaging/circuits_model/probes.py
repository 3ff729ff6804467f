"""TransformerLens-style measurements of previous-token and induction heads (Olsson et al. 2022,
"In-context Learning and Induction Heads"; the ARENA / TransformerLens conventions), shared by
train.py (tracked during training) and analyze.py (on the exported weights).

Repeated random tokens: [BOS, r_1..r_N, r_1..r_N] (BOS at position 0, the first copy at
1..N, the second at N+1..2N), r drawn uniformly from the non-special ids.

* induction score of a head: mean of A[i, i-(N-1)] over i in [N+1, 2N] (the diagonal at
  offset -(N-1): from the second copy's r_k to the token after r_k's first occurrence);
* previous-token score: mean of A[i, i-1] over every i >= 1 of the same sequences;
* in-context loss: the mean next-token loss on the targets of the first copy (positions 1..N:
  unpredictable, ~ln of the candidates) and of the second copy less its first token (positions
  N+2..2N, predictable by copying).

K-composition (TransformerLens `HookedTransformer.all_composition_scores("K")`, Elhage et al.
2021): for a head h1 of layer 0 and h2 of layer 1, ||W_OV^{h1} W_QK^{h2 T}||_F /
(||W_OV^{h1}||_F ||W_QK^{h2}||_F), with W_OV = W_V W_O and W_QK = W_Q W_K^T in TransformerLens'
row-vector convention (x @ W), on the weights as `from_pretrained` prepares them: LayerNorm
weights folded into the reading weights (fold_ln, which also centres W_Q, W_K, W_V over
d_model) and the writing weights W_O centred over d_model (center_writing_weights). Q- and
V-composition are the same with W_QK and W_OV on the right.
"""

import torch
import torch.nn.functional as F

import default_recipe  # noqa: F401  (puts the default recipe's folder on sys.path)
import wordpiece as wp

FIRST_NORMAL_ID = 5  # ids 0..4 are [PAD] [UNK] [CLS] [SEP] [MASK]


def repeated_tokens(vocab_size, n=50, batch=10, seed=0, bos=wp.CLS):
    g = torch.Generator().manual_seed(seed)
    r = torch.randint(FIRST_NORMAL_ID, vocab_size, (batch, n), generator=g)
    return torch.cat([torch.full((batch, 1), bos, dtype=torch.long), r, r], dim=1)


@torch.no_grad()
def repeat_scores(model, n=50, batch=10, seed=0, ablate=()):
    """Per-head induction and previous-token scores ([layers, heads] each) and the in-context
    losses on the two copies, on `batch` repeated sequences of length n; `ablate`: (layer,
    head) pairs zeroed in the pass."""
    ids = repeated_tokens(model.config["vocab_size"], n, batch, seed)
    logits, rec = model(ids, want=True, ablate=ablate)
    i = torch.arange(n + 1, 2 * n + 1)
    induction = torch.stack([p[:, :, i, i - (n - 1)].mean(dim=(0, 2)) for p in rec["probs"]])
    j = torch.arange(1, 2 * n + 1)
    prev = torch.stack([p[:, :, j, j - 1].mean(dim=(0, 2)) for p in rec["probs"]])
    # loss[:, t] is the loss of predicting ids[:, t + 1] from position t.
    loss = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
    first = loss[:, 0:n].mean().item()            # targets at positions 1..N
    second = loss[:, n + 1:2 * n].mean().item()   # targets at positions N+2..2N
    return {"induction": induction, "prev": prev, "loss_first_copy": first,
            "loss_second_copy": second}


def head_weights(model):
    """Per layer, TransformerLens-shaped W_Q, W_K, W_V [heads, d, hd] and W_O [heads, hd, d],
    with the LayerNorm weight folded in and centred as from_pretrained does (module doc)."""
    c = model.config
    d, nh = c["n_embd"], c["n_head"]
    hd = d // nh
    out = []
    for block in model.transformer.h:
        w = block.attn.c_attn.weight.detach().float()           # [d, 3d], x @ w
        w = block.ln_1.weight.detach().float()[:, None] * w     # fold the LN scale
        w = w - w.mean(dim=0, keepdim=True)                     # fold_ln's centring
        per_head = lambda m: m.view(d, nh, hd).permute(1, 0, 2)  # [heads, d, hd]
        wq, wk, wv = (per_head(m) for m in w.split(d, dim=1))
        wo = block.attn.c_proj.weight.detach().float().view(nh, hd, d)
        wo = wo - wo.mean(dim=-1, keepdim=True)                 # center_writing_weights
        out.append({"W_Q": wq, "W_K": wk, "W_V": wv, "W_O": wo})
    return out


def _score(left_a, left_b, right_a, right_b):
    """||(A1 B1)(A2 B2)||_F / (||A1 B1||_F ||A2 B2||_F) for the factored d x d matrices."""
    left, right = left_a @ left_b, right_a @ right_b
    return ((left @ right).norm() / (left.norm() * right.norm())).item()


def composition_scores(model, earlier=0, later=1):
    """{"K"|"Q"|"V": [heads of `earlier`][heads of `later`]} composition scores."""
    w = head_weights(model)
    e, l = w[earlier], w[later]
    nh = e["W_Q"].shape[0]
    out = {m: [[0.0] * nh for _ in range(nh)] for m in ("K", "Q", "V")}
    for h1 in range(nh):
        ov_a, ov_b = e["W_V"][h1], e["W_O"][h1]                 # OV = W_V W_O  [d, d]
        for h2 in range(nh):
            # QK = W_Q W_K^T; its transpose W_K W_Q^T is K-composition's right side.
            out["K"][h1][h2] = _score(ov_a, ov_b, l["W_K"][h2], l["W_Q"][h2].T)
            out["Q"][h1][h2] = _score(ov_a, ov_b, l["W_Q"][h2], l["W_K"][h2].T)
            out["V"][h1][h2] = _score(ov_a, ov_b, l["W_V"][h2], l["W_O"][h2])
    return out


def random_composition_baseline(d, hd, samples=200, seed=0):
    """Mean composition score of Gaussian factors of the same shapes ([d, hd] @ [hd, d] on both
    sides): what two unrelated heads score in this width (Elhage et al. subtract such a
    baseline)."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g)
    vals = [_score(r(d, hd), r(hd, d), r(d, hd), r(hd, d)) for _ in range(samples)]
    return sum(vals) / len(vals)
