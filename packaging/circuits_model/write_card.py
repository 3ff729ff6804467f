"""Write the model card OUT_DIR/README.md from what the recipe measured.

Usage: write_card.py OUT_DIR       (train.sh's last stage; standard library only)

Every number comes from OUT_DIR/metrics.json, config.json or the files themselves, and every
sentence that judges a head follows a stated rule on those numbers (TransformerLens's 0.4
detector threshold, AttnScope's labels), so rerunning the recipe regenerates an honest card. A
missing metrics.json section (AttnScope's checks are skipped when attnscope-cli is not built)
is said plainly instead of failing.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLD = 0.4  # TransformerLens's head detector / AttnScope's L8 and L1 (0.5 for prev)
PREV_THRESHOLD = 0.5
PACKAGES = {"bible-kjv-text": "King James Bible", "fortunes": "fortune cookies",
            "debian-handbook": "The Debian Administrator's Handbook",
            "python3.11-doc": "the Python 3.11 manual", "perl-doc": "Perl's manual pages",
            "gnu-standards": "GNU Coding Standards"}


def f3(x):
    return "–" if x is None else f"{x:.3f}"


def f2(x):
    return "–" if x is None else f"{x:.2f}"


def mb(n):
    return f"{n / 1e6:.2f} MB"


def file_rows(out):
    rows, total = [], 0
    for dirpath, _, files in sorted(os.walk(out)):
        for name in sorted(files):
            p = os.path.join(dirpath, name)
            total += os.path.getsize(p)
    top = {n: os.path.getsize(f"{out}/{n}") for n in sorted(os.listdir(out))
           if os.path.isfile(f"{out}/{n}")}
    return top, total


def head(h):
    return f"{h[0]}-{h[1]}"


def missing(key):
    return (f"Not recorded: metrics.json has no `{key}` section (analyze.py writes it; its "
            "AttnScope half runs only when `attnscope-cli` is built).")


def stopped(t):
    sched = t.get("schedule_steps", t["steps"])
    if sched == t["steps"]:
        return " (to 0)"
    return (f", stopped at step {t['steps']:,} (`--stop`: the induction head had formed and "
            "the 2-core time budget was spent; the learning rate was then "
            f"{t['lr'] * (sched - t['steps']) / (sched - t['warmup_steps']):.2g})")


def section_training(m, cfg):
    t = m["training"]
    corpus = t.get("corpus", {})
    words = sum(v["words"] for v in corpus.values())
    srcs = ", ".join(f"{PACKAGES.get(k, k)} (`{k}`, {v['words']:,} words)"
                     for k, v in corpus.items())
    prose = t["batch"] - t["random_repeat"] - t["text_repeat"]
    mach = t["machine"]
    sw = t["software"]
    pk = ", ".join(f"`{k}` {v}" for k, v in sw.get("packages", {}).items())
    last = t["loss_log"][-1]
    return f"""## Training

Data: the default model's corpus (`packaging/default_model/prepare_data.py`: English prose from
Debian 12 packages, {words:,} words: {srcs}), {t['train_tokens']:,} tokens as one stream with
`[SEP]` after each document, cut into {t['prose_windows']:,} windows of
{t['n_positions'] - 1} tokens that start at a sentence start. Each step's batch of
{t['batch']} sequences of {t['n_positions']} tokens, each beginning with `[CLS]`:

| sequences | what | why |
|---|---|---|
| {prose} | prose windows, in a seeded order per pass | the language model |
| {t['random_repeat']} | random repeats: a fresh random span r_1..r_N (N uniform in {t['repeat_span'][0]}–{t['repeat_span'][1]}, ids drawn uniformly from the 7,995 non-special ids) repeated to the end of the window, `r r r …`; every copy after the first is a target | nothing but copying from context predicts them: the pressure that makes a previous-token head and an induction head (Olsson et al. 2022) |
| {t['text_repeat']} | text repeats: a prose window in which a span of 6–25 tokens comes again 0–30 tokens after it ends | the same on natural text (a name or phrase that recurs) |

{t['steps']:,} steps (AdamW, β = (0.9, 0.98), weight decay 0.01 on matrices, peak learning
rate {t['lr']:g} after {t['warmup_steps']} warm-up steps, then the linear decay of a
{t.get('schedule_steps', t['steps']):,}-step schedule{stopped(t)}, gradient norm
clipped at 1, no dropout), seed {t['seed']}, {t['threads']} threads;
{t['steps'] * t['batch'] * t['n_positions']:,} tokens seen. Position embeddings start from
the {'sinusoidal table at the token embeddings initial scale (then trained like every other weight)' if t.get('wpe_init') == 'sinusoidal' else 'normal N(0, 0.02)'}.
Training loss over the last {t['probe']['every']} steps {last[1]:.3f}.
Time: **{t['wall_minutes']} min wall, {t['cpu_minutes']} min CPU** on {mach.get('cpu_model_name')}
({mach.get('logical_cpus')} logical CPUs{', ' + mach['hypervisor'] + ' guest' if mach.get('hypervisor') else ''}),
{sw.get('os')}, torch {sw.get('torch')} ({pk}), under `nice` with
`OMP_WAIT_POLICY={sw.get('omp_wait_policy')}`."""


def section_eval(m):
    if "evaluation" not in m:
        return "## Held-out quality\n\n" + missing("evaluation")
    e = m["evaluation"]
    icl = e["icl"]
    return f"""## Held-out quality

Next-token loss on the held-out 2 % of the corpus ({e['heldout_windows']} windows,
{e['heldout_tokens']:,} targets): **{e['loss']:.3f} nats** (perplexity {e['perplexity']}),
against {e['unigram_loss']:.3f} for the training unigram distribution and {e['chance_loss']:.3f}
for chance (ln of the vocabulary). A 2-layer, 64-wide model: it writes locally plausible
English, not sense.

In-context score (Olsson et al.'s loss late in the context minus early, at this context length):
mean loss on targets at positions {icl['late_positions'][0]}–{icl['late_positions'][1] - 1}
{icl['loss_late']:.3f} minus positions {icl['early_positions'][0]}–{icl['early_positions'][1] - 1}
{icl['loss_early']:.3f} = **{icl['score']:+.3f}** (negative: later tokens are predicted better,
using the context)."""


def head_table(c, survey_t, survey_d):
    nl = len(c["induction"])
    nh = len(c["induction"][0])
    by = lambda s: {(h["layer"], h["head"]): h for h in s["heads"]} if s else {}
    st, sd = by(survey_t), by(survey_d)
    rows = ["| head | prev-token | induction | AttnScope probe (S7) | AttnScope `prev` on EWT | "
            "AttnScope labels (EWT) | AttnScope labels (doubled sentences) |",
            "|---|---|---|---|---|---|---|"]
    for l in range(nl):
        for h in range(nh):
            t, d = st.get((l, h), {}), sd.get((l, h), {})
            rows.append(f"| {l}-{h} | {f3(c['prev'][l][h])} | {f3(c['induction'][l][h])} | "
                        f"{f3(d.get('probe_induction'))} | {f3(t.get('prev'))} | "
                        f"{t.get('labels') or '–'} | {d.get('labels') or '–'} |")
    return "\n".join(rows)


def section_circuit(m):
    if "circuit" not in m:
        return "## The circuit\n\n" + missing("circuit")
    c = m["circuit"]
    a = m.get("attnscope", {})
    ph, ih = c["prev_head"], c["induction_head"]
    pv, iv = c["prev"][ph[0]][ph[1]], c["induction"][ih[0]][ih[1]]
    verdict_p = "a previous-token head" if pv >= PREV_THRESHOLD else \
        f"the strongest previous-token head, below the {PREV_THRESHOLD} threshold"
    verdict_i = "an induction head" if iv >= THRESHOLD else \
        f"the strongest induction head, below TransformerLens's {THRESHOLD} threshold"
    k = c["composition"]["K"]
    q = c["composition"]["Q"]
    v = c["composition"]["V"]
    nh = len(k)
    kp = k[ph[1]][ih[1]]
    others = [k[i][j] for i in range(nh) for j in range(nh) if (i, j) != (ph[1], ih[1])]
    comp_rows = ["| layer-0 head → | " + " | ".join(f"1-{j} (K / Q / V)" for j in range(nh))
                 + " |", "|---|" + "---|" * nh]
    for i in range(nh):
        cells = []
        for j in range(nh):
            cell = f"{k[i][j]:.3f} / {q[i][j]:.3f} / {v[i][j]:.3f}"
            if (i, j) == (ph[1], ih[1]):
                cell = f"**{cell}**"
            cells.append(cell)
        comp_rows.append(f"| 0-{i} | " + " | ".join(cells) + " |")
    abl = c["ablation"]
    abl_rows = ["| zero-ablated | loss on the first copy | loss on the second copy | "
                f"induction score of {head(ih)} |", "|---|---|---|---|",
                f"| nothing | {c['loss_first_copy']:.3f} | {c['loss_second_copy']:.3f} | "
                f"{iv:.3f} |"]
    names = {"prev_head": f"previous-token head {head(ph)}",
             "induction_head": f"induction head {head(ih)}", "both": "both"}
    for key, r in abl.items():
        label = names.get(key, key.replace("other_layer1_head_", "the other strongest "
                                                                "layer-1 head "))
        abl_rows.append(f"| {label} | {r['loss_first_copy']:.3f} | {r['loss_second_copy']:.3f}"
                        f" | {r['induction_of_induction_head']:.3f} |")
    survey_t, survey_d = a.get("survey_treebank"), a.get("survey_doubled")
    p = c["probe"]
    text = f"""## The circuit

**{head(ph)} is {verdict_p}** (mean attention to the previous token {pv:.3f}) **and {head(ih)}
is {verdict_i}** (induction score {iv:.3f}). On {p['batch']} sequences of repeated random tokens
`[BOS] r_1..r_{p['n']} r_1..r_{p['n']}` (seed {p['seed']}; `probes.py`, TransformerLens's
definitions): the induction score is the mean attention from each token of the second copy to
the token after its first occurrence (the diagonal at offset −{p['n'] - 1}, positions
{p['n'] + 1}–{2 * p['n']}), the previous-token score the mean attention to position i − 1.
The model's next-token loss is {c['loss_first_copy']:.3f} nats on the first copy (random:
chance is ln 7995 = 8.987) and **{c['loss_second_copy']:.3f}** on the second (less its first
token): it copies from context.

{head_table(c, survey_t, survey_d)}

"prev-token" and "induction" are this recipe's PyTorch scores above; the AttnScope columns are
`attnscope-cli survey` (below): its repeated-random-token probe S7 (the same formula on its own
SplitMix64 draws, 10 sequences, N = {p['n']}), its mean attention to the previous token over the
treebank's sentences, and its labels (rules L1–L10: `prev` needs ≥ 0.5, `induct` needs the
induction detector, first token excluded, ≥ 0.4 and the probe ≥ 0.4).

**Ablation** (`probes.repeat_scores` with heads' outputs zeroed), same sequences:

{chr(10).join(abl_rows)}

Zero-ablating the previous-token head {head(ph)} takes the second copy's loss from
{c['loss_second_copy']:.2f} to {abl['prev_head']['loss_second_copy']:.2f} nats and {head(ih)}'s
induction score from {iv:.2f} to {abl['prev_head']['induction_of_induction_head']:.2f}: the
induction heads read it. Ablating one induction head costs little
({abl['induction_head']['loss_second_copy']:.2f} nats): the layer-1 heads do the same job
side by side (their induction scores are all in the table above).

**Composition** (TransformerLens `all_composition_scores`, Elhage et al. 2021: ‖W_OV¹ W_QK²ᵀ‖ /
(‖W_OV¹‖ ‖W_QK²‖) for K, with LayerNorm weights folded and W_Q, W_K, W_V, W_O centred as
`from_pretrained` does). K-composition from {head(ph)} into {head(ih)} is **{kp:.3f}**, against
{min(others):.3f}–{max(others):.3f} for the other {len(others)} pairs and
{c['composition_random_baseline']:.3f} for random matrices of the same shapes:

{chr(10).join(comp_rows)}"""
    return text


def section_series(m):
    if "series" not in m or not m["series"]:
        return "## Training series\n\n" + missing("series")
    s = m["series"]
    c = m["circuit"]
    a = m.get("attnscope", {})
    sel = m.get("series_selection", {})
    ph, ih = c["prev_head"], c["induction_head"]
    probe_by_step = {}
    for r in a.get("survey_series", []):
        for h in r["heads"]:
            if (h["layer"], h["head"]) == tuple(ih):
                probe_by_step[r["step"]] = h["probe_induction"]
    rows = [f"| folder | induction score of {head(ih)} | AttnScope probe of {head(ih)} | "
            f"prev-token score of {head(ph)} | K-composition {head(ph)}→{head(ih)} | "
            "loss first / second copy | held-out loss | in-context score |",
            "|---|---|---|---|---|---|---|---|"]
    for r in s:
        rows.append(f"| `{r['folder']}` | {r['induction_head_score']:.3f} | "
                    f"{f3(probe_by_step.get(r['step']))} | {r['prev_head_score']:.3f} | "
                    f"{r['k_composition']:.3f} | {r['loss_first_copy']:.2f} / "
                    f"{r['loss_second_copy']:.2f} | {r['heldout_loss']:.3f} | "
                    f"{r['icl_score']:+.3f} |")
    # The full curve from training's probes (every 50 steps), thinned to ~16 rows.
    log = m["training"]["probe_log"]
    every = max(1, len(log) // 16)
    curve = ["| step | induction " + head(ih) + " | prev " + head(ph)
             + " | loss second copy | held-out loss |", "|---|---|---|---|---|"]
    for r in log[::every] + ([log[-1]] if (len(log) - 1) % every else []):
        curve.append(f"| {r['step']} | {r['induction'][ih[0]][ih[1]]:.3f} | "
                     f"{r['prev'][ph[0]][ph[1]]:.3f} | {r['loss_second_copy']:.3f} | "
                     f"{r['heldout_loss']:.3f} |")
    frac = ", ".join(f"{int(100 * f)} %" for f in sel.get("fractions", []))
    tab = series_probe(a.get("series_command", []), ih)
    same = (f"""

The "AttnScope probe" column is also `attnscope-cli series resources/circuits_model/series
--probe-repeats 10 --probe-length 25`'s `induction_probe` (the same S7 on the same draws, every
head at every step: `tests/core/cli/circuits_model_cli_test.cpp`). At its defaults, 4 sequences
of N = 10 as the Training tab plots it, {head(ih)} reads {", ".join(tab[r["step"]] for r in s)}
over these steps (`attnscope-cli series` below).""" if all(r["step"] in tab for r in s) else "")
    return f"""## Training series: the induction bump

`series/` holds {len(s)} checkpoints of this run (same files as the model; AttnScope's Training
tab and `attnscope-cli series resources/circuits_model/series` read them), picked by
`series.py`'s rule from the snapshots taken every {m['training']['probe']['every']} steps: step
0, the last step before {head(ih)}'s induction score reached {frac.split(', ')[0] if frac else '10 %'}
of its rise, the first steps at {', '.join(frac.split(', ')[1:]) if frac else '50 % and 90 %'}
of it, and the last step (the shipped model).

{chr(10).join(rows)}{same}

The whole run, every {every * m['training']['probe']['every']} steps (from training's probes):

{chr(10).join(curve)}"""


def series_probe(lines, h):
    """{step: induct} of head h from `attnscope-cli series`'s table (induct its last column)."""
    out = {}
    for line in lines:
        f = line.split()
        if len(f) >= 10 and f[1].isdigit() and f[2:4] == [str(h[0]), str(h[1])]:
            out[int(f[1])] = f[-1]
    return out


def section_attnscope(m):
    a = m.get("attnscope")
    if not a:
        return "## Checked with AttnScope\n\n" + missing("attnscope")
    t, lg = a["tokenizer"], a["logits"]
    out = [f"""## Checked with AttnScope

- Tokenizer: `attnscope-cli tokenize` against the recipe's `wordpiece.py` (with `[CLS]` in
  front) on {t['compared']} held-out sentences: {t['mismatches']} mismatches.
- Weights: `attnscope-cli predict --top 5` against this recipe's PyTorch model on the same F16
  weights, {lg['texts']} sentences, {lg['logits_compared']} logits: largest difference
  {lg['max_abs_logit_diff']:g}; top-1 the same at {lg['top1_agree_positions']} of the
  positions compared."""]
    for key, title in (("survey_treebank", "the treebank"),
                       ("survey_doubled", f"{a.get('doubled_sentences')} held-out sentences "
                                          "each written twice on one line")):
        s = a.get(key)
        if s:
            out.append(f"\n`attnscope-cli survey MODEL {os.path.basename(s['corpus'])} "
                       f"--probe-repeats 10 --probe-length 25` on {title}:\n\n```\n"
                       + "\n".join(s["summary"]) + "\n```")
    if a.get("series_command"):
        out.append("\n`attnscope-cli series resources/circuits_model/series --sentences doubled_sentences.txt` (the summary; "
                   "the CSV has every head):\n\n```\n" + "\n".join(a["series_command"][:12])
                   + "\n```")
    return "\n".join(out)


def section_cli_circuit(m):
    """What attnscope-cli itself prints about the circuit: circuits, patch and dla."""
    a = m.get("attnscope", {})
    if "circuits" not in a:
        return "## The circuit in AttnScope\n\n" + missing("attnscope")
    c, p = a["circuits"], a.get("patching")
    ph, ih = head(m["circuit"]["prev_head"]), head(m["circuit"]["induction_head"])
    induct = sorted(f"{h['layer']}-{h['head']}" for h in a["survey_doubled"]["heads"]
                    if "induct" in (h["labels"] or ""))
    fp = c["k_from_prev"]
    rows = ["| reader | AttnScope label | K-composition from " + ph + " | its rank among the "
            "writers into the reader |", "|---|---|---|---|"]
    labels = {f"{h['layer']}-{h['head']}": h["labels"] or "–" for h in a["survey_doubled"]["heads"]}
    for r in sorted(fp):
        rows.append(f"| {r} | {labels.get(r, '–')} | {fp[r]['k']:.4f} | {fp[r]['rank_into']} |")
    top_w, top_r = c["k_top"].split("->")
    text = [f"""## The circuit in AttnScope

`attnscope-cli circuits resources/circuits_model` (weight-space scores with TransformerLens's
weight processing; its composition scores agree with `probes.py`'s). The strongest
K-composition of all {c['k_pairs']} writer → reader pairs is **{c['k_top']}
({c['composition']['K'][c['k_top']]:.4f})**: {'the previous-token head' if top_w == ph else top_w}
into {'an induction head' if top_r in induct else top_r}. AttnScope labels {len(induct)}
layer-1 heads `induct` ({', '.join(induct)}): the induction mechanism is shared between them
rather than one head's; {ih} is the one with the highest induction score. Unrelated heads
score about 1/√d_model = {c['baseline']:.3f}: K-composition stands only
{c['composition']['K'][c['k_top']] / c['baseline']:.2f}× above that here, a weak signal, so
read it with the attention scores, the ablation above and the patching below.

{chr(10).join(rows)}

OV copying score (Σλ / Σ|λ| of W_E W_OV W_U; +1: the head raises the logit of the token it
attends to) of the induction heads: {', '.join(f"{h} {c['copying'][h]:.2f}" for h in induct)}.

```
{chr(10).join(c['stdout'])}
```"""]
    if p:
        ids = lambda v: ",".join(map(str, v))
        by = p["patch_by_head"]
        layer1 = ", ".join(f"{h} {v:.2f}" for h, v in sorted(by.items()) if h.startswith("1-"))
        text.append(f"""
**Patching and direct logit attribution** on a repeated random sequence: clean
`[BOS] r_1..r_20 r_1..r_19` (the next token is r_20 = id {p['target_id']}) against corrupted
`[BOS] s_1..s_20 r_1..r_19` (the first copy replaced; s_20 = id {p['distractor_id']}), metric
the logit difference r_20 − s_20 at the last position. Restoring one head's clean output into
the corrupted run (`--by head`, denoising) gives back this share of the clean logit
difference: layer 1 {layer1}; layer 0 at most {max(v for h, v in by.items() if h.startswith('0-')):.2f}
(the layer-0 heads' outputs at the last position alone carry no answer; what they wrote
earlier is what the induction heads' keys read). In the clean run the largest direct writer
of r_20 − s_20 is {p['dla_top_head'].replace('L', '').replace('H', '-')}; the layer-1 heads'
direct terms are {', '.join(f"{k[1]}-{k[3]} {v:+.2f}" for k, v in sorted(p['dla_terms'].items()) if k.startswith('L1H'))}
of the total {sum(p['dla_terms'].values()):.2f}.

```
attnscope-cli patch resources/circuits_model --by head --clean-ids {ids(p['clean_ids'])} \\
    --corrupted-ids {ids(p['corrupted_ids'])} --target-id {p['target_id']} --distractor-id {p['distractor_id']}
{chr(10).join(p['stdout_patch'])}

attnscope-cli dla resources/circuits_model --token-ids <the clean ids> --target-id {p['target_id']} --distractor-id {p['distractor_id']} --top 6
{chr(10).join(p['stdout_dla'])}
```""")
    return "\n".join(text)


def main(out):
    with open(f"{out}/metrics.json") as f:
        m = json.load(f)
    with open(f"{out}/config.json") as f:
        cfg = json.load(f)
    top, total = file_rows(out)
    n_series = len(m.get("series", []))
    files = "\n".join(f"| `{n}` | {s:,} bytes |" for n, s in top.items())
    params = m["training"]["parameters"]
    card = f"""# AttnScope circuits demo model: a 2-layer GPT-2 with induction heads

A small causal language model trained from scratch by `packaging/circuits_model/` (`train.sh`,
one command, CPU only, Debian packages only) so that AttnScope's circuits features — direct
logit attribution, the logit lens, activation and path patching, QK/OV composition, generation
and the Training tab — have a real model with a known circuit to open: a previous-token head in
layer 0 and induction heads in layer 1 that read it (Olsson et al. 2022, "In-context
Learning and Induction Heads"; Elhage et al. 2021, "A Mathematical Framework for Transformer
Circuits"). Every number here is measured by the recipe (`metrics.json`).

Hugging Face GPT-2 layout (`model_type` gpt2, `GPT2LMHeadModel` tensor names under
`transformer.`, Conv1D weights [in, out], fused `c_attn`, pre-norm, learned positions, final
`ln_f`, LM head tied to `wte` and left out of the file as `save_pretrained` leaves it):
{cfg['n_layer']} layers × {cfg['n_head']} heads, width {cfg['n_embd']} (head width
{cfg['n_embd'] // cfg['n_head']}), MLP {cfg['n_inner']} ({cfg['activation_function']}),
{cfg['n_positions']} positions, vocabulary {cfg['vocab_size']:,}; {params:,} parameters,
{cfg['torch_dtype']}. The vocabulary is the default model's uncased WordPiece
(`resources/default_model/vocab.txt`); as a causal LM the tokenizer adds only `[CLS]` in front
(the beginning-of-sequence token every training sequence starts with) and `[SEP]`, which ends
every training document, is the end-of-sequence token (`bos_token_id` {cfg['bos_token_id']},
`eos_token_id` {cfg['eos_token_id']}).

| file | size |
|---|---|
{files}
| `series/` ({n_series} checkpoints, each the same files) | |

All of `resources/circuits_model/`, series included: {total:,} bytes ({mb(total)}).

{section_circuit(m)}

{section_cli_circuit(m)}

{section_series(m)}

{section_eval(m)}

{section_training(m, cfg)}

{section_attnscope(m)}

## Limitations

A demonstration model, not a useful language model: 2 layers of width {cfg['n_embd']} trained
for {m['training']['wall_minutes']} minutes on {m['training']['train_tokens']:,} tokens of
English (a Bible, fortune cookies and software manuals); {cfg['n_positions']} tokens of context. Its induction
head was encouraged by synthetic repeated sequences in the training mix, so it is cleaner than
in a model trained on natural text alone. The text is uncased WordPiece, so generated text is
lower case, pieces joined by the WordPiece decoder.

## Reproduce

```sh
packaging/circuits_model/train.sh        # as root on Debian 12; writes resources/circuits_model
```

See `packaging/circuits_model/README.md`. Bit-identical weights need the same thread count and
BLAS build; elsewhere expect the same circuit, not the same bits.
"""
    with open(f"{out}/README.md", "w", encoding="utf-8") as f:
        f.write(card)
    print(f"wrote {out}/README.md ({total:,} bytes in {out})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "resources",
                                                            "circuits_model"))
