"""Masked-LM training of the small BERT on the prepared corpus, with resumable checkpoints.

Usage: train.py DATA_DIR TOK_DIR WORK_DIR OUT_DIR --steps N [--batch B] [--timing K]

Determinism: the whole data order and every step's masking follow from --seed (numpy
RandomState for the example order, a torch Generator seeded per step for the masks), there is no
dropout, and torch runs on a fixed number of threads. A resumed run therefore continues exactly
as an uninterrupted one would; bit-identical weights still need the same thread count and BLAS.
"""

import argparse
import hashlib
import json
import os
import subprocess
import time

# Must be set before torch starts its OpenMP runtime; train.sh exports the same.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F

import model as bert
import wordpiece as wp


def log(msg):
    print(time.strftime("%Y-%m-%d %H:%M:%S"), msg, flush=True)


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return f.read().splitlines()


def command_output(cmd):
    """stdout of cmd, or "" when the tool is missing or fails: machine facts are optional."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True,
                              env=dict(os.environ, LC_ALL="C")).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine_info():
    """The CPU and memory this run trains on, for the model card's machine line (from lscpu)."""
    cpu = {k.strip(): v.strip() for k, _, v in
           (line.partition(":") for line in command_output(["lscpu"]).splitlines()) if v}
    as_int = lambda key: int(cpu[key]) if cpu.get(key, "").isdigit() else None
    cores = (as_int("Core(s) per socket") or 0) * (as_int("Socket(s)") or 0) or None
    mem = [l.split()[1] for l in read_lines("/proc/meminfo") if l.startswith("MemTotal:")]
    return {"cpu_model_name": cpu.get("Model name"), "cpu_vendor": cpu.get("Vendor ID"),
            "cpu_family": as_int("CPU family"), "cpu_model": as_int("Model"),
            "logical_cpus": as_int("CPU(s)"), "cores": cores,
            "hypervisor": cpu.get("Hypervisor vendor"),
            "memory_gib": round(int(mem[0]) / 2**20, 1) if mem else None,
            "cuda": torch.cuda.is_available()}


def software_info():
    """Versions that decide whether weights come out bit-identical (see the module docstring)."""
    dpkg = command_output(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", "python3-torch",
                           "libopenblas0-openmp"])
    os_name = [l.split("=", 1)[1].strip().strip('"') for l in read_lines("/etc/os-release")
               if l.startswith("PRETTY_NAME=")]
    return {"os": os_name[0] if os_name else None, "torch": torch.__version__,
            "packages": dict(l.split(" ", 1) for l in dpkg.splitlines() if " " in l),
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY")}


def tokenize_file(path, tok):
    """List of sentences (id lists, no specials), in file order; blank lines are dropped."""
    with open(path, encoding="utf-8") as f:
        return [tok.encode(line, special=False) for line in f if line.strip()]


def token_cache(tok_dir, data_dir, work_dir):
    """Path of the tokenized training set; only valid for this vocabulary and this corpus."""
    with open(f"{tok_dir}/vocab.txt", "rb") as f:
        key = hashlib.md5(f.read() + str(os.path.getsize(f"{data_dir}/train.txt")).encode())
    return f"{work_dir}/train_ids_{key.hexdigest()[:12]}.npz"


def pack(sentences, max_len, rng):
    """Pack consecutive sentences into [CLS] ... [SEP] sequences of at most max_len tokens.

    Most sequences fill the window (cheap per token); 20 % get a random shorter target, as in
    BERT, so the model also sees short inputs like the single sentences it is analysed on.
    """
    out, cur, budget = [], [], max_len - 2
    for s in sentences:
        s = s[:max_len - 2]
        if cur and len(cur) + len(s) > budget:
            out.append([wp.CLS] + cur + [wp.SEP])
            cur = []
        if not cur:
            budget = max_len - 2 if rng.rand() >= 0.2 else rng.randint(8, max_len - 1)
        cur = cur + s
    if cur:
        out.append([wp.CLS] + cur[:max_len - 2] + [wp.SEP])
    return out


def batch_tensor(seqs):
    n = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), n), wp.PAD, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
    return ids


def mask_tokens(ids, vocab_size, gen, rate=0.15):
    """BERT masking: rate of the real tokens are targets; of those 80 % [MASK], 10 % a random
    token, 10 % unchanged. Returns (input ids, target positions as a bool mask)."""
    real = ids > wp.MASK  # not a special token and not padding
    target = (torch.rand(ids.shape, generator=gen) < rate) & real
    roll = torch.rand(ids.shape, generator=gen)
    randoms = torch.randint(wp.MASK + 1, vocab_size, ids.shape, generator=gen)
    inp = ids.clone()
    inp[target & (roll < 0.8)] = wp.MASK
    swap = target & (roll >= 0.8) & (roll < 0.9)
    inp[swap] = randoms[swap]
    return inp, target


def mlm_step(model, ids, gen):
    inp, target = mask_tokens(ids, model.config["vocab_size"], gen)
    h, _ = model.encode(inp, ids != wp.PAD)
    # The vocabulary projection only runs on the ~15 % target positions: it is the single
    # largest matrix product otherwise.
    logits = model.mlm_logits(h[target])
    gold = ids[target]
    loss = F.cross_entropy(logits, gold)
    correct = (logits.argmax(-1) == gold).sum().item()
    return loss, correct, int(gold.numel())


def lr_at(step, steps, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * max(0.0, (steps - step) / max(1, steps - warmup))


def main():
    ap = argparse.ArgumentParser()
    for name in ("data_dir", "tok_dir", "work_dir", "out_dir"):
        ap.add_argument(name)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--max-pos", type=int, default=128)
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--timing", type=int, default=0, help="time this many steps and stop")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    torch.use_deterministic_algorithms(True)
    os.makedirs(a.work_dir, exist_ok=True)
    os.makedirs(a.out_dir, exist_ok=True)

    tok = wp.WordPiece.load(f"{a.tok_dir}/vocab.txt")
    cache = token_cache(a.tok_dir, a.data_dir, a.work_dir)
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=False)
        flat, bounds = z["flat"], z["bounds"]
        sentences = [flat[bounds[i]:bounds[i + 1]].tolist() for i in range(len(bounds) - 1)]
    else:
        sentences = tokenize_file(f"{a.data_dir}/train.txt", tok)
        bounds = np.cumsum([0] + [len(s) for s in sentences])
        np.savez(cache, flat=np.array([i for s in sentences for i in s], dtype=np.int32),
                 bounds=bounds)
    log(f"{len(sentences)} training sentences, {sum(map(len, sentences))} tokens")

    c = {"vocab_size": len(tok.vocab), "hidden_size": a.hidden, "num_hidden_layers": a.layers,
         "num_attention_heads": a.heads, "intermediate_size": a.ffn,
         "max_position_embeddings": a.max_pos, "type_vocab_size": 2}
    model = bert.BertForMaskedLM(c)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model {c}, {n_params} parameters")

    decay = [p for n, p in model.named_parameters() if not ("bias" in n or "LayerNorm" in n)]
    rest = [p for n, p in model.named_parameters() if "bias" in n or "LayerNorm" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.98), eps=1e-6)

    ckpt, step, wall0, cpu0 = f"{a.work_dir}/checkpoint.pt", 0, 0.0, 0.0
    loss_log = []  # [step, mean loss, tokens/s] per logged window, for the model card
    state = torch.load(ckpt) if os.path.exists(ckpt) and not a.timing else None
    # A checkpoint of a run with another schedule (steps, LR, batch, seed) would continue under
    # the wrong learning-rate curve and give a model no rerun reproduces: start over instead.
    same_run = ("steps", "batch", "lr", "warmup", "seed", "max_pos", "layers", "heads", "hidden")
    if state and any(state["args"].get(k) != vars(a).get(k) for k in same_run):
        theirs = {k: state["args"].get(k) for k in same_run}
        log(f"{ckpt} is from a run with other settings {theirs}; starting over")
        state = None
    if state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, wall0, cpu0 = state["step"], state["wall"], state["cpu"]
        loss_log = state.get("loss_log", [])  # checkpoints from before the log have none
        log(f"resumed from {ckpt} at step {step}")

    # Packing is done once; epoch e is shuffled with RandomState(seed + 1 + e), so the order of
    # any step never depends on where a run was interrupted.
    seqs = pack(sentences, a.max_pos, np.random.RandomState(a.seed))
    per_epoch = len(seqs) // a.batch
    log(f"{len(seqs)} sequences, {per_epoch} steps per epoch")
    orders = {}

    def batch_for(step):
        e, s = divmod(step, per_epoch)
        if e not in orders:
            orders.clear()
            orders[e] = np.random.RandomState(a.seed + 1 + e).permutation(len(seqs))
        return [seqs[i] for i in orders[e][s * a.batch:(s + 1) * a.batch]], e

    warmup = int(a.warmup * a.steps)
    t_start, c_start, last_ckpt = time.time(), time.process_time(), time.time()
    sum_loss, sum_correct, sum_n, sum_tok, window_t = 0.0, 0, 0, 0, time.time()
    model.train()
    end = a.timing if a.timing else a.steps
    while step < end:
        batch, epoch = batch_for(step)
        ids = batch_tensor(batch)
        gen = torch.Generator().manual_seed(a.seed * 1_000_003 + step)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a.steps, a.lr, warmup)
        loss, correct, n = mlm_step(model, ids, gen)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        sum_loss += loss.item() * n
        sum_correct, sum_n = sum_correct + correct, sum_n + n
        sum_tok += int((ids != wp.PAD).sum())
        if step % 50 == 0 or step == end or a.timing:
            dt = time.time() - window_t
            wall = wall0 + time.time() - t_start
            cpu = cpu0 + time.process_time() - c_start
            loss_log.append([step, round(sum_loss / sum_n, 4), round(sum_tok / dt)])
            log(f"step {step}/{a.steps} epoch {epoch} loss {sum_loss / sum_n:.4f} "
                f"acc {sum_correct / sum_n:.4f} lr {opt.param_groups[0]['lr']:.2e} "
                f"{sum_tok / dt:.0f} tok/s wall {wall / 60:.1f} min cpu {cpu / 60:.1f} min")
            sum_loss, sum_correct, sum_n, sum_tok, window_t = 0.0, 0, 0, 0, time.time()
        if not a.timing and (time.time() - last_ckpt > 60 * a.ckpt_minutes or step == end):
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                     "wall": wall0 + time.time() - t_start,
                     "cpu": cpu0 + time.process_time() - c_start, "args": vars(a),
                     "loss_log": loss_log}
            torch.save(state, ckpt + ".tmp")
            os.replace(ckpt + ".tmp", ckpt)
            last_ckpt = time.time()
            log(f"checkpoint at step {step}")
    if a.timing:
        return

    wall = wall0 + time.time() - t_start
    cpu = cpu0 + time.process_time() - c_start
    model.eval()
    bert.export(model, a.out_dir, wp.PAD)
    # Every number in an existing metrics.json described the previous weights. The later stages
    # rebuild it; a stage that is skipped must then show as missing in the card, not as stale.
    if os.path.exists(f"{a.out_dir}/metrics.json"):
        os.remove(f"{a.out_dir}/metrics.json")
    info = {"steps": a.steps, "batch": a.batch, "max_len": a.max_pos, "lr": a.lr,
            "warmup_steps": warmup, "seed": a.seed, "threads": a.threads,
            "parameters": n_params, "train_sentences": len(sentences),
            "train_tokens": int(sum(map(len, sentences))),
            "sequences": len(seqs), "steps_per_epoch": per_epoch,
            "wall_minutes": round(wall / 60, 1), "cpu_minutes": round(cpu / 60, 1),
            "machine": machine_info(), "software": software_info(), "loss_log": loss_log}
    with open(f"{a.work_dir}/train_info.json", "w") as f:
        json.dump(info, f, indent=1)
    log(f"exported to {a.out_dir}: { {k: v for k, v in info.items() if k != 'loss_log'} }")


if __name__ == "__main__":
    main()
