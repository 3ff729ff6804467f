"""Causal-LM training of the small GPT-2 on the default model's corpus mixed with repeated
sequences, so that a previous-token head and an induction head form (Olsson et al. 2022).

Usage: train.py DATA_DIR VOCAB_TXT WORK_DIR OUT_DIR --steps N [--batch B] [--timing K]

A batch of B sequences of n_positions tokens, each starting with [CLS] (the model's BOS):

* B - R - T prose windows: the corpus (prepare_data.py's train.txt) as one stream of tokens,
  a [SEP] after each document, cut into windows that start at a sentence start (a window
  that cuts a sentence is followed by one starting at that sentence);
* R random repeats: r_1..r_N drawn uniformly from the non-special ids, N uniform in [5, 25],
  repeated to the end of the window (r r r ...). The loss leaves out the first copy's targets
  (random, nothing to learn) and keeps every later one;
* T text repeats: a prose window in which a span of 6-25 tokens is copied again 0-30 tokens
  after it ends (the natural case: a name or phrase that comes back).

Every probe step (default every 50) the run records the TransformerLens induction and
previous-token scores of every head and the in-context loss on repeated random tokens
(probes.py), the held-out prose loss, and writes an F16 snapshot to WORK_DIR/steps/step<N>:
series.py picks the shipped training series from them.

Determinism: the prose order of epoch e is RandomState(seed + 1 + e).permutation, each step's
repeats come from a torch Generator seeded with seed * 1000003 + step, there is no dropout and
torch runs on a fixed number of threads, so a resumed run continues exactly as an
uninterrupted one would (bit-identical weights also need the same thread count and BLAS).
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import time

# Must be set before torch starts its OpenMP runtime; train.sh exports the same.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F

import default_recipe as dr
import gpt2
import probes
import wordpiece as wp

IGNORE = -100


def read_documents(path):
    """Documents (lists of sentences) of a prepare_data.py file: a blank line ends each."""
    docs, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                cur.append(line.rstrip("\n"))
            elif cur:
                docs.append(cur)
                cur = []
    if cur:
        docs.append(cur)
    return docs


def token_stream(path, tok, cache):
    """(stream, sentence starts): every document's sentences' ids, then [SEP]; cached."""
    if cache and os.path.exists(cache):
        z = np.load(cache, allow_pickle=False)
        return z["stream"], z["starts"]
    stream, starts = [], []
    for doc in read_documents(path):
        for s in doc:
            starts.append(len(stream))
            stream.extend(tok.encode(s, special=False))
        stream.append(wp.SEP)
    stream, starts = np.array(stream, dtype=np.int32), np.array(starts, dtype=np.int64)
    if cache:
        np.savez(cache, stream=stream, starts=starts)
    return stream, starts


def window_starts(stream_len, starts, body):
    """Window start offsets: each at a sentence start; the next starts at the sentence the
    previous one cut (or just after it when one sentence fills the window)."""
    out, k = [], 0
    while k < len(starts) and starts[k] + body <= stream_len:
        s = int(starts[k])
        out.append(s)
        end = s + body
        nxt = int(np.searchsorted(starts, end, side="right")) - 1  # last sentence start <= end
        k = nxt if starts[nxt] > s else k + 1
    return np.array(out, dtype=np.int64)


def random_repeats(vocab, body, gen, lo, hi):
    """A fresh random span r_1..r_N (N uniform in [lo, hi], ids uniform over the non-special
    ones) repeated to the end of the window: r r r ... Every copy after the first is a target
    (predictable only by copying from context); the first copy is not (random)."""
    n = int(torch.randint(lo, hi + 1, (1,), generator=gen))
    r = torch.randint(probes.FIRST_NORMAL_ID, vocab, (n,), generator=gen)
    seq = r.repeat(body // n + 1)[:body]
    target = seq.clone()
    target[:n] = IGNORE
    return seq, target


def text_repeat(window, gen):
    body = len(window)
    m = int(torch.randint(6, min(25, body // 2 - 6) + 1, (1,), generator=gen))
    a = int(torch.randint(0, body - 2 * m + 1, (1,), generator=gen))
    gap = int(torch.randint(0, min(30, body - 2 * m - a) + 1, (1,), generator=gen))
    b = a + m + gap
    seq = torch.cat([window[:b], window[a:a + m], window[b:body - m]])
    return seq, seq.clone()


def make_batch(step, a, stream, starts_w, order_for, vocab):
    """(input ids [B, n], targets [B, n]): targets[t] is the id at t + 1, or IGNORE."""
    body = a.n_positions - 1
    n_prose = a.batch - a.random_repeat - a.text_repeat
    gen = torch.Generator().manual_seed(a.seed * 1_000_003 + step)
    win = lambda s: torch.from_numpy(stream[s:s + body].astype(np.int64))
    seqs = [(w, w.clone()) for w in (win(s) for s in order_for(step, n_prose))]
    seqs += [random_repeats(vocab, body, gen, a.repeat_min, a.repeat_max)
             for _ in range(a.random_repeat)]
    for _ in range(a.text_repeat):
        s = int(starts_w[int(torch.randint(0, len(starts_w), (1,), generator=gen))])
        seqs.append(text_repeat(win(s), gen))
    ids = torch.stack([torch.cat([torch.tensor([wp.CLS]), s]) for s, _ in seqs])
    targets = torch.stack([t for _, t in seqs])
    # ids [B, body + 1]; position p predicts ids[p + 1]; the last position has no target.
    targets = torch.cat([targets, torch.full((len(seqs), 1), IGNORE)], dim=1)
    return ids, targets


def lm_loss(model, ids, targets):
    # The same loss as over every position with ignore_index, without unembedding the
    # positions that have no target (the random spans' first copies: a third of a batch).
    where = targets != IGNORE
    return F.cross_entropy(model(ids, where=where), targets[where])


@torch.no_grad()
def heldout_loss(model, held):
    logits = model(held)
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                           held[:, 1:].reshape(-1)).item()


def snapshot(model, work_dir, step):
    d = f"{work_dir}/steps/step{step}"
    os.makedirs(d, exist_ok=True)
    gpt2.export(model, d, wp.CLS, wp.SEP)


def probe(model, step, held, a):
    model.eval()
    s = probes.repeat_scores(model, n=a.probe_length, batch=a.probe_batch, seed=a.probe_seed)
    row = {"step": step,
           "induction": [[round(v, 4) for v in l] for l in s["induction"].tolist()],
           "prev": [[round(v, 4) for v in l] for l in s["prev"].tolist()],
           "loss_first_copy": round(s["loss_first_copy"], 4),
           "loss_second_copy": round(s["loss_second_copy"], 4),
           "heldout_loss": round(heldout_loss(model, held), 4)}
    model.train()
    return row


def main():
    ap = argparse.ArgumentParser()
    for name in ("data_dir", "vocab_txt", "work_dir", "out_dir"):
        ap.add_argument(name)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--random-repeat", type=int, default=10)
    ap.add_argument("--text-repeat", type=int, default=2)
    ap.add_argument("--repeat-min", type=int, default=5)
    ap.add_argument("--repeat-max", type=int, default=25)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--inner", type=int, default=256)
    ap.add_argument("--n-positions", type=int, default=64)
    ap.add_argument("--wpe-init", choices=("normal", "sinusoidal"), default="sinusoidal")
    ap.add_argument("--init-std", type=float, default=0.0,
                    help="weights' initial std; 0: GPT-2 small's per-unit scale, "
                         "0.02 * sqrt(768 / hidden)")
    ap.add_argument("--probe-every", type=int, default=50)
    ap.add_argument("--probe-length", type=int, default=25)
    ap.add_argument("--probe-batch", type=int, default=10)
    ap.add_argument("--probe-seed", type=int, default=0)
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--stop", type=int, default=0,
                    help="end the run at this step of the --steps schedule (0: at --steps)")
    ap.add_argument("--timing", type=int, default=0, help="time this many steps and stop")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    torch.use_deterministic_algorithms(True)
    os.makedirs(a.work_dir, exist_ok=True)
    os.makedirs(a.out_dir, exist_ok=True)

    tok = wp.WordPiece.load(a.vocab_txt)
    with open(a.vocab_txt, "rb") as f:
        key = hashlib.md5(f.read() + str(os.path.getsize(f"{a.data_dir}/train.txt")).encode())
    cache = f"{a.work_dir}/train_stream_{key.hexdigest()[:12]}.npz"
    stream, sent_starts = token_stream(f"{a.data_dir}/train.txt", tok, cache)
    held_stream, held_starts = token_stream(f"{a.data_dir}/heldout.txt", tok, None)
    body = a.n_positions - 1
    starts_w = window_starts(len(stream), sent_starts, body)
    held_w = window_starts(len(held_stream), held_starts, body)
    # 32 held-out windows spread over the held-out documents, the same at every probe.
    pick = held_w[np.linspace(0, len(held_w) - 1, 32).astype(int)]
    held = torch.stack([torch.from_numpy(np.concatenate(
        [[wp.CLS], held_stream[s:s + body]]).astype(np.int64)) for s in pick])
    dr.log(f"{len(stream)} training tokens in {len(sent_starts)} sentences, "
           f"{len(starts_w)} prose windows of {body} tokens; {len(held_w)} held-out windows")

    c = {"vocab_size": len(tok.vocab), "n_embd": a.hidden, "n_head": a.heads,
         "n_layer": a.layers, "n_inner": a.inner, "n_positions": a.n_positions}
    init_std = a.init_std or 0.02 * math.sqrt(768 / a.hidden)
    model = gpt2.GPT2LMHeadModel(c, a.wpe_init, init_std)
    n_params = sum(p.numel() for p in model.parameters())
    dr.log(f"model {c}, {n_params} parameters")

    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and "wpe" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and "wpe" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.98), eps=1e-6)

    ckpt, step, wall0, cpu0 = f"{a.work_dir}/checkpoint.pt", 0, 0.0, 0.0
    loss_log, probe_log = [], []
    state = torch.load(ckpt) if os.path.exists(ckpt) and not a.timing else None
    same_run = ("steps", "batch", "random_repeat", "text_repeat", "repeat_min", "repeat_max",
                "lr", "warmup", "seed",
                "layers", "heads", "hidden", "inner", "n_positions", "wpe_init", "init_std",
                "probe_every",
                "probe_length", "probe_batch", "probe_seed")
    if state and any(state["args"].get(k) != vars(a).get(k) for k in same_run):
        theirs = {k: state["args"].get(k) for k in same_run}
        dr.log(f"{ckpt} is from a run with other settings {theirs}; starting over")
        state = None
    if state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, wall0, cpu0 = state["step"], state["wall"], state["cpu"]
        loss_log, probe_log = state["loss_log"], state["probe_log"]
        dr.log(f"resumed from {ckpt} at step {step}")
    elif not a.timing:
        shutil.rmtree(f"{a.work_dir}/steps", ignore_errors=True)

    n_prose = a.batch - a.random_repeat - a.text_repeat
    per_epoch = len(starts_w) // n_prose
    dr.log(f"{n_prose} prose + {a.random_repeat} random-repeat + {a.text_repeat} text-repeat "
           f"sequences a step; {per_epoch} steps per pass over the prose")
    orders = {}

    def order_for(step, k):
        e, s = divmod(step, per_epoch)
        if e not in orders:
            orders.clear()
            orders[e] = np.random.RandomState(a.seed + 1 + e).permutation(len(starts_w))
        return starts_w[orders[e][s * k:(s + 1) * k]]

    if step == 0 and not a.timing:
        probe_log.append(probe(model, 0, held, a))
        snapshot(model, a.work_dir, 0)
    warmup = int(a.warmup * a.steps)
    t_start, c_start, last_ckpt = time.time(), time.process_time(), time.time()
    sum_loss, sum_n, sum_tok, window_t = 0.0, 0, 0, time.time()
    model.train()
    end = a.timing or a.stop or a.steps
    while step < end:
        ids, targets = make_batch(step, a, stream, starts_w, order_for, c["vocab_size"])
        for g in opt.param_groups:
            g["lr"] = dr.lr_at(step, a.steps, a.lr, warmup)
        loss = lm_loss(model, ids, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        n = int((targets != IGNORE).sum())
        sum_loss, sum_n, sum_tok = sum_loss + loss.item() * n, sum_n + n, sum_tok + ids.numel()
        if step % a.probe_every == 0 or step == end:
            dt = time.time() - window_t
            wall = wall0 + time.time() - t_start
            cpu = cpu0 + time.process_time() - c_start
            loss_log.append([step, round(sum_loss / sum_n, 4), round(sum_tok / dt)])
            row = probe(model, step, held, a) if not a.timing else None
            extra = ""
            if row:
                probe_log.append(row)
                ind = np.array(row["induction"])
                prev = np.array(row["prev"])
                li, hi = np.unravel_index(ind.argmax(), ind.shape)
                lp, hp = np.unravel_index(prev.argmax(), prev.shape)
                extra = (f" | held-out {row['heldout_loss']:.3f} repeat loss "
                         f"{row['loss_first_copy']:.2f}->{row['loss_second_copy']:.2f} "
                         f"induction {li}-{hi} {ind.max():.3f} prev {lp}-{hp} {prev.max():.3f}")
                snapshot(model, a.work_dir, step)
            dr.log(f"step {step}/{a.steps} loss {sum_loss / sum_n:.4f} "
                   f"lr {opt.param_groups[0]['lr']:.2e} {sum_tok / dt:.0f} tok/s "
                   f"wall {wall / 60:.1f} min cpu {cpu / 60:.1f} min{extra}")
            sum_loss, sum_n, sum_tok, window_t = 0.0, 0, 0, time.time()
        if not a.timing and (time.time() - last_ckpt > 60 * a.ckpt_minutes or step == end):
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                     "wall": wall0 + time.time() - t_start,
                     "cpu": cpu0 + time.process_time() - c_start, "args": vars(a),
                     "loss_log": loss_log, "probe_log": probe_log}
            torch.save(state, ckpt + ".tmp")
            os.replace(ckpt + ".tmp", ckpt)
            last_ckpt = time.time()
            dr.log(f"checkpoint at step {step}")
    if a.timing:
        return

    wall = wall0 + time.time() - t_start
    cpu = cpu0 + time.process_time() - c_start
    model.eval()
    gpt2.export(model, a.out_dir, wp.CLS, wp.SEP)
    # Every number of an existing metrics.json described the previous weights; the later
    # stages rebuild it, and one that is skipped shows as missing in the card, not stale.
    if os.path.exists(f"{a.out_dir}/metrics.json"):
        os.remove(f"{a.out_dir}/metrics.json")
    info = {"steps": end, "schedule_steps": a.steps, "batch": a.batch,
            "random_repeat": a.random_repeat,
            "text_repeat": a.text_repeat, "repeat_span": [a.repeat_min, a.repeat_max],
            "n_positions": a.n_positions, "wpe_init": a.wpe_init,
            "init_std": round(init_std, 5), "lr": a.lr,
            "warmup_steps": warmup, "seed": a.seed, "threads": a.threads,
            "parameters": n_params, "config": c,
            "train_tokens": int(len(stream)), "train_sentences": int(len(sent_starts)),
            "prose_windows": int(len(starts_w)), "steps_per_prose_pass": per_epoch,
            "probe": {"every": a.probe_every, "length": a.probe_length,
                      "batch": a.probe_batch, "seed": a.probe_seed},
            "wall_minutes": round(wall / 60, 1), "cpu_minutes": round(cpu / 60, 1),
            "machine": dr.machine_info(), "software": dr.software_info(),
            "loss_log": loss_log, "probe_log": probe_log}
    with open(f"{a.data_dir}/corpus_stats.json") as f:
        info["corpus"] = json.load(f)
    with open(f"{a.work_dir}/train_info.json", "w") as f:
        json.dump(info, f, indent=1)
    dr.merge_metrics(a.out_dir, {"training": info})
    dr.log(f"exported to {a.out_dir}: "
           f"{ {k: v for k, v in info.items() if k not in ('loss_log', 'probe_log')} }")


if __name__ == "__main__":
    main()
