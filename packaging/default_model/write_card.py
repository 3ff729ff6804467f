"""Write the model card OUT_DIR/README.md from what the recipe measured.

Usage: write_card.py OUT_DIR       (train.sh's last stage; standard library only)

Every number comes from OUT_DIR/metrics.json, config.json, the tokenizer files or the
safetensors header, and every sentence that judges the model follows a rule on those numbers,
so rerunning the recipe regenerates an honest card. The fixed wording is card_template.md; the
package versions and licences and one figure from the literature sit in the tables below. A
missing metrics.json section (the head analysis is skipped when attnscope-cli is not built) is
said plainly in the card instead of failing.
"""

import argparse
import json
import math
import os
import re
import statistics
import struct
import textwrap

import prepare_data  # stdlib only: the corpus rules are read from the recipe itself

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Key in metrics.json "corpus", label, what was taken, licence, kind (for the prose). Facts about
# the Debian 12 packages, not measurements; {skip} is prepare_data.FORTUNE_SKIP.
PACKAGES = [
    ("bible-kjv-text", "`bible-kjv-text` 4.38 (read with `bible-kjv`)", "King James Bible, every "
     "verse (one document per chapter)", "text in the public domain (1611 translation; the "
     "package's copyright file: \"copyright … is expired\"); the reader program GPL-2+",
     "the King James Bible"),
    ("fortunes", "`fortunes` / `fortunes-min` 1:1.99.1-7.3", "fortune cookies from every English "
     "data file except {skip}; cookies containing indented art and `-- Author` lines dropped",
     "BSD-3-Clause per the package's copyright file (the collections are of quotations of mixed "
     "origin)", "fortune cookies"),
    ("debian-handbook", "`debian-handbook` 11.20220922", "*The Debian Administrator's Handbook*, "
     "English HTML, docbook paragraphs (no listings)", "GPL-2+ or CC-BY-SA-3.0",
     "software manuals"),
    ("python3.11-doc", "`python3.11-doc` 3.11.2 (via `python3-doc`)", "reStructuredText sources "
     "of the Python manual: unindented prose paragraphs, roles reduced to their text",
     "PSF License 2 (Python documentation licence)", "software manuals"),
    ("perl-doc", "`perl-doc` 5.36.0", "POD manual pages (`perl*.pod`, without the `perl*delta` "
     "release notes): ordinary paragraphs, formatting codes removed, verbatim (code) paragraphs "
     "dropped", "GPL-1+ or Artistic", "software manuals"),
    ("gnu-standards", "`gnu-standards` 2022.03.23", "*GNU Coding Standards* and *Information for "
     "Maintainers of GNU Software*, plain-text renderings, without examples",
     "GFDL-1.3+ with no invariant sections", "software manuals"),
]
CLARK_BEST_ALL = 34.5  # Clark et al. 2019 §4.2: BERT-base's best single head on all relations
# AMD family 25 (0x19) model ranges whose core is known; other CPUs get family/model only.
AMD_CORES = [(25, 0x00, 0x0F, "Zen 3"), (25, 0x10, 0x1F, "Zen 4"), (25, 0x60, 0x7F, "Zen 4")]
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
CLOSE = 0.02  # "close" to the offset baseline: within 2 accuracy points
SECTIONS = {"training": "Training", "heldout_mlm": "Held-out masked-LM quality",
            "heads": "What the heads do"}
WHY_MISSING = {"heads": " (train.sh runs analyze_heads.py only when `attnscope-cli` is built "
               "and the treebank is present; see `packaging/default_model/README.md`)",
               "tokenizer_check": " (check_tokenizer.py also needs `attnscope-cli`)"}


def pct(x, digits=1):
    return f"{100 * x:.{digits}f}\xa0%"  # no-break space: rewrap keeps "%" by its number


def span(values, sep="–"):
    return f"{min(values):.2f}{sep}{max(values):.2f}"


def threads(t):
    return f"{t['threads']} thread" + ("s" if t["threads"] != 1 else "")


def and_list(items):
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def missing(key, what="Not recorded"):
    return f"{what}: metrics.json has no `{key}` section{WHY_MISSING.get(key, '')}."


def table_rows(rows):
    return "\n".join("|" + "|".join(f" {x} " if x != "" else " " for x in r) + "|" for r in rows)


def load_json(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_template(path=os.path.join(HERE, "card_template.md")):
    with open(path, encoding="utf-8") as f:
        parts = re.split(r"^<!-- section: (\w+) -->\n", f.read(), flags=re.M)
    return dict(zip(parts[1::2], (p.strip() for p in parts[2::2])))


def safetensors_summary(path):
    """Parameter counts and tensor-name groups from the header (u64 length, then JSON)."""
    with open(path, "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
    header.pop("__metadata__", None)
    sizes = {k: math.prod(v["shape"]) for k, v in header.items() if v["dtype"][0] in "FB"}
    groups = {}
    for name in header:
        groups.setdefault(name.split(".")[0], set()).add(name.split(".")[1])
    # A group whose tensors share their second component is named down to it (cls.predictions).
    prefixes = [f"`{g}.{min(c)}.*`" if len(c) == 1 else f"`{g}.*`" for g, c in groups.items()]
    return {"params": sum(sizes.values()), "prefixes": ", ".join(prefixes),
            "params_no_head": sum(v for k, v in sizes.items() if not k.startswith("cls.")),
            "dtype": "/".join(sorted({v["dtype"] for v in header.values()})),
            "tied": "cls.predictions.decoder.weight" not in header,
            "pooler": any(k.startswith("bert.pooler.") for k in header),
            "bytes": os.path.getsize(path)}


def tokenizer_summary(out):
    with open(f"{out}/vocab.txt", encoding="utf-8") as f:
        vocab = f.read().splitlines()
    tj = load_json(f"{out}/tokenizer.json")
    steps = [tj.get(k, {}).get("type") for k in ("normalizer", "pre_tokenizer", "model")]
    lower = tj.get("normalizer", {}).get(
        "lowercase", load_json(f"{out}/tokenizer_config.json").get("do_lower_case"))
    return {"size": len(vocab), "pipeline": " + ".join(s for s in steps if s),
            "ids": " ".join(f"`{t}`={vocab.index(t)}" for t in SPECIALS if t in vocab),
            "cased": "uncased" if lower else "cased"}


def loss_trend(t):
    """Mean logged loss of the first and last four windows of the second half of training."""
    half = t.get("loss_log", [])[len(t.get("loss_log", [])) // 2:]
    if len(half) < 8:
        return None
    a, b = (statistics.mean(r[1] for r in rows) for rows in (half[:4], half[-4:]))
    return {"from": a, "to": b, "steps": (half[1][0], half[-2][0]), "falling": b < a - 0.02}


def positional_findings(h):
    rows, thr = h["positional_heads"], h.get("positional_threshold", 0.9)
    pos = [r for r in rows if r["positional"]]
    if pos:
        named = and_list([f"{r['layer']}-{r['head']} (r* {r['r_star']:+d}, {pct(r['freq'])})"
                          for r in pos])
        return f"{len(pos)} of {len(rows)} heads are positional by Voita's rule: {named}.", pos
    top = max(r["freq"] for r in rows)
    top_ns = max(r["freq"] for r in h["positional_heads_nonspecial_keys"])
    return (f"No head is positional: the most frequent offset of any head covers at most "
            f"{pct(top)} of queries ({pct(top_ns)} when [CLS]/[SEP] are excluded as keys), "
            f"{'far from' if top < thr / 2 else 'below'} Voita's {pct(thr, 0)}."), pos


def layer_zero(special):
    """Whether layer 0 sends most of its maxima to [CLS]/[SEP], head by head."""
    most = sum(x > 0.5 for x in special)
    rng = f"{100 * min(special):.0f}–{100 * max(special):.0f} %"
    if most == len(special):
        return (f"every layer-0 head sends its maximum to [CLS]/[SEP] for most queries ({rng}), "
                "the parking on special tokens that Clark et al. read as a \"no-op\"")
    if most:
        return (f"{most} of the {len(special)} layer-0 heads "
                f"{'sends its' if most == 1 else 'send their'} maximum to [CLS]/[SEP] for most "
                f"queries ({rng} over the layer)")
    return f"layer 0 sends most maxima elsewhere than [CLS]/[SEP] ({rng} go there)"


def layer_findings(h):
    """Most focused layer, layer 0's use of [CLS]/[SEP], and whether the last is near uniform."""
    per, u = h["entropy_per_layer"], h.get("uniform_entropy_mean_ln_n")
    means = [statistics.mean(v for k, v in h["head_mean_entropy_nats"].items()
                             if k.split("-")[0] == str(layer)) for layer in range(len(per))]
    f, last = means.index(min(means)), len(means) - 1
    vs = f" against {u:.2f} for a uniform row over these sentences" if u else ""
    text = (f"Layer {f} heads are the most focused (mean entropy {per[f]['min']:.1f}–"
            f"{per[f]['max']:.1f} nats{vs}); {layer_zero(h['argmax_on_special_fraction'][0])}")
    ents, conf = f"{per[last]['min']:.2f}–{per[last]['max']:.2f} nats", h["confidence"][-1]
    near = bool(u) and means[last] >= 0.95 * u  # no uniform reference: no uniformity claim
    if near:
        text += f"; layer {last} is almost uniform ({ents}, mean max weight {span(conf)})"
    elif u:
        text += f"; layer {last} stays below uniform ({ents} against {u:.2f})"
    else:
        text += f"; layer {last} has mean entropy {ents}, mean max weight {span(conf)}"
    return text + ".", near


def deps_findings(deps):
    """Relations where the best head beats the best fixed offset, and the `all` bucket."""
    rels = [d for d in deps if d["relation"] != "all"]
    wins = [d for d in rels if d["accuracy"] > d["baseline_accuracy"]]
    close = [d for d in rels if 0 <= d["baseline_accuracy"] - d["accuracy"] <= CLOSE]
    median = statistics.median(d["baseline_accuracy"] for d in rels) if rels else 0
    weak = bool(wins) and all(d["baseline_accuracy"] < median for d in wins)
    vs = lambda ds: and_list([f"`{d['relation']}` ({100 * d['accuracy']:.1f} vs "
                              f"{100 * d['baseline_accuracy']:.1f} %)" for d in ds])
    text = "No relation but `all` occurs often enough to be listed." if not rels else (
        f"On the treebank the best head beats the fixed-offset baseline on {len(wins)} of "
        f"{len(rels)} relations" + (f": {vs(wins)}" if wins else "")
        + (f", each where that baseline is below its median over relations ({pct(median)})"
           if weak else "")
        + f"; it is below the baseline on the other {len(rels) - len(wins)}"
        + (f", within {100 * CLOSE:.0f} points on {vs(close)}." if close else "."))
    al = next((d for d in deps if d["relation"] == "all"), None)
    if al:
        text += (f" The `all` bucket is {pct(al['accuracy'])} (head {al['best_head']}, "
                 f"{al['direction'].replace('<-', '←').replace('->', '→')}) "
                 f"{'against' if al['accuracy'] < al['baseline_accuracy'] else 'above'} "
                 f"{pct(al['baseline_accuracy'])} for offset {al['baseline_offset']:+d}. For "
                 f"comparison, BERT-base's best single head reaches {CLARK_BEST_ALL}\xa0% on all "
                 f"relations in Clark et al. (different treebank and label set).")
    below = al is not None and al["accuracy"] < al["baseline_accuracy"]
    return text, {"wins": len(wins), "rels": len(rels), "weak": weak, "below": below}


def head_summary(h):
    """The intro's sentence on heads; 'weak' = no positional head and `all` below its offset."""
    pos, near = positional_findings(h)[1], layer_findings(h)[1]
    dep = deps_findings(h["deps"])[1]
    parts = [f"{len(pos) or 'no'} head{' is' if len(pos) <= 1 else 's are'} positional by "
             "Voita's rule"] + (["the last layer's attention is close to uniform"] if near else [])
    if dep["rels"]:
        parts.append(f"the best head per dependency relation beats the fixed-offset baseline on "
                     f"{dep['wins']} of {dep['rels']} relations"
                     + (", only where that baseline is weak" if dep["weak"] else ""))
    if h.get("importance"):
        ranked = sorted(h["importance"]["delta_loss"].items(), key=lambda kv: -kv[1])
        parts.append(f"zero-ablating head {ranked[0][0]} alone raises the held-out masked-LM loss "
                     f"by {ranked[0][1]:.2f} nats")
    if h.get("coref"):
        al = h["coref"]["groups"][0]
        worse = al["accuracy"] < min(al[b] for b in ("nearest", "head_match", "sieve"))
        parts.append(f"its best coreference head finds an antecedent for {pct(al['accuracy'])} of "
                     f"mentions, " + (f"below even the nearest-mention baseline's "
                                      f"{pct(al['nearest'])}" if worse else
                                      f"against {pct(al['nearest'])} for the nearest mention"))
    weak = not pos and dep["below"]
    lead = "Its heads are only weakly specialised: " if weak else "What its heads do: "
    return lead + and_list(parts) + " (details below).", weak


def intro(c):
    m, t, st = c["m"], c["m"].get("training"), c["st"]
    out = [f"It is a toy next to BERT-base: about {st['params'] / 1e6:.1f} M parameters"
           + (f", {t['train_tokens'] / 1e6:.1f} M training tokens and {t['wall_minutes']:.0f} "
              f"minutes of training on {threads(t)} of a CPU." if t else ".")]
    mlm, trend = m.get("heldout_mlm", {}).get("packed_128"), loss_trend(t or {})
    if mlm:
        out.append(f"Be clear about what that buys: it "
                   f"{'beats' if mlm['loss'] < mlm['unigram_loss'] else 'does not beat'} a "
                   f"unigram model on held-out text (loss {mlm['loss']:.2f} vs "
                   f"{mlm['unigram_loss']:.2f} nats, accuracy {pct(mlm['accuracy'])} vs "
                   f"{pct(mlm['unigram_accuracy'])})" + (", and its training loss was still "
                   "falling when training stopped." if trend and trend["falling"] else "."))
    text, weak = head_summary(m["heads"]) if "heads" in m else (
        "Its heads were not analysed for this model (see below).", False)
    return " ".join(out + [text, "It is a real trained checkpoint in the exact Hugging Face "
                           "layout" + (", not an analysis subject with BERT-like heads."
                                       if weak else ".")])


def tokenizer_check(tc):
    if not tc:
        return missing("tokenizer_check", "Tokenizer parity not recorded")
    names = {"tokenizers (Rust)": "Hugging Face `tokenizers` (Rust)",
             "tokenizers.js": "tokenizers.js"}
    ran = [k for k in names if k in tc]
    texts = (f"the {tc['heldout_sentences']:,} held-out sentences plus {tc['awkward_strings']} "
             f"awkward strings (accents, CJK, control characters, over-long words)")
    bad = [f"{names[k]} differs on {tc[k]['mismatches']}" for k in ran if tc[k]["mismatches"]]
    out = (f"On {texts} the recipe's tokenizer, {and_list([names[k] for k in ran])} "
           + ("were compared: " + "; ".join(bad) if bad else "give identical ids")
           if ran else f"Hugging Face references were not run on {texts}")
    cli = tc.get("attnscope-cli", {})
    if cli:
        agree = "so does `attnscope-cli tokenize`" if ran and not bad else \
            "`attnscope-cli tokenize` gives the recipe's ids"
        out += (f"; `attnscope-cli tokenize` differs on {cli['mismatches']} of {cli['compared']}"
                if cli["mismatches"] else f"; {agree} on {cli['compared']:,} of them")
    unk = f"{pct(tc['unk_rate'], 3)} ({tc['heldout_unk']:,}" if tc["heldout_unk"] else "none (0"
    return (out + f". [UNK] on held-out text: {unk} of {tc['heldout_tokens']:,} tokens; the "
            f"awkward strings give {tc['awkward_unk']})")


def file_fields(c):
    cfg, st, tok = c["cfg"], c["st"], c["tok"]
    return {"arch": cfg["architectures"][0], "model_type": cfg["model_type"],
            "torch_dtype": cfg.get("torch_dtype"), "dtype": st["dtype"],
            "bytes": f"{st['bytes']:,}", "prefixes": st["prefixes"],
            "tied": "the decoder is tied to the word embeddings" if st["tied"]
            else "a separate decoder", "pooler": "a" if st["pooler"] else "no",
            "cased": tok["cased"], "vocab_size": tok["size"], "ids": tok["ids"],
            "pipeline": tok["pipeline"],
            "tokenizer_check": tokenizer_check(c["m"].get("tokenizer_check"))}


def architecture(c):
    cfg, st, t = c["cfg"], c["st"], c["m"].get("training", {})
    heads, d = cfg["num_attention_heads"], cfg["hidden_size"]
    pos = cfg.get("position_embedding_type")
    return c["tpl"]["architecture"].format(
        pos="learned absolute positions" if pos == "absolute" else f"{pos} positions",
        act={"gelu": "exact-erf GELU", "gelu_new": "tanh GELU"}.get(cfg["hidden_act"],
                                                                 cfg["hidden_act"]),
        eps=f"{cfg['layer_norm_eps']:g}", tied="tied" if st["tied"] else "untied",
        layers=cfg["num_hidden_layers"], heads=heads, hidden=d, width=d // heads,
        ffn=cfg["intermediate_size"], positions=cfg["max_position_embeddings"],
        vocab=cfg["vocab_size"], params=f"{st['params']:,}",
        params_no_head=f"{st['params_no_head']:,}", grid=cfg["num_hidden_layers"] * heads,
        bert64="as in BERT, so logit scales and entropies are comparable" if d // heads == 64
        else "(BERT's is 64), so logit scales and entropies are not directly comparable",
        fast=f"train in {t['wall_minutes']:.0f} min on {threads(t)} of a CPU and to "
        if t else "", mb=f"{st['bytes'] / 1e6:.1f}", dtype=st["dtype"],
        window=t.get("max_len", cfg["max_position_embeddings"]))


def corpus(tpl, stats):
    """The package table, and the largest package's share of the words."""
    known = {p[0]: p for p in PACKAGES}
    skip = ", ".join(f"`{s}`" for s in sorted(prepare_data.FORTUNE_SKIP))
    rows = [known.get(k, (k, f"`{k}`", "(not described)", "?", k))[1:4]
            + (f"{s['sentences']:,}", f"{s['words']:,}") for k, s in stats.items()]
    rows = [(a, b.format(skip=skip), *rest) for a, b, *rest in rows]
    total = [sum(s[k] for s in stats.values()) for k in ("sentences", "words")]
    rows.append(("total (held-out slice included)", "", "", f"{total[0]:,}", f"{total[1]:,}"))
    top = max(stats, key=lambda k: stats[k]["words"])
    share = (f" ({known.get(top, (top,) * 5)[4]} is "
             f"{100 * stats[top]['words'] / total[1]:.0f} % of the words)")
    return tpl["corpus"].format(rows=table_rows(rows)), share


def training_data(c):
    mlm, stats = c["m"].get("heldout_mlm"), c["m"].get("corpus")
    corpus_table, share = corpus(c["tpl"], stats) if stats else (missing("corpus"), "")
    return c["tpl"]["data"].format(
        min_words=prepare_data.MIN_WORDS, max_words=prepare_data.MAX_WORDS, corpus=corpus_table,
        heldout_percent=prepare_data.HELDOUT_PERCENT, share=share,
        held=f"{mlm['heldout_sentences']:,} sentences, {mlm['heldout_tokens']:,} tokens"
        if mlm else "sizes not recorded")


def machine_line(mc):
    if not mc:
        return "not recorded in metrics.json (train.py did not record it for this run)"
    fam, mod, vm = mc.get("cpu_family"), mc.get("cpu_model"), mc.get("hypervisor")
    core = next((n for f, lo, hi, n in AMD_CORES if mc.get("cpu_vendor") == "AuthenticAMD"
                 and fam == f and mod is not None and lo <= mod <= hi), None)
    return (f"`lscpu` model name \"{mc.get('cpu_model_name')}\", family {fam} model {mod}"
            + (f" ({core})" if core else "") + f"; {mc.get('logical_cpus')} "
            + (f"vCPUs under {vm}" if vm else "CPUs") + f", {mc.get('cores')} cores; "
            f"{mc.get('memory_gib')} GiB; {'CUDA available' if mc.get('cuda') else 'no GPU'}")


def software_line(t):
    sw = t.get("software")
    if not sw:
        return f"not recorded in metrics.json; torch on {threads(t)}"
    pk = sw.get("packages", {})
    return (f"{sw.get('os')}, `python3-torch` {pk.get('python3-torch')} (CPU), "
            f"`libopenblas0-openmp` {pk.get('libopenblas0-openmp')}, torch on {threads(t)}, "
            f"`OMP_WAIT_POLICY={sw.get('omp_wait_policy')}`")


def time_line(t):
    out = (f"{t['wall_minutes']:.0f} min wall, {t['cpu_minutes']:.0f} min CPU (process time, "
           f"summed over {threads(t)})")
    rates = [r[2] for r in t.get("loss_log", [])]
    if len(rates) >= 4:  # a step is fixed work, so a wide spread means other load came and went
        out += (f"; throughput per logged window {min(rates):,}–{max(rates):,} tokens/s (median "
                f"{statistics.median(rates):,.0f})")
        out += ": the machine's load changed during the run" if max(rates) > 2 * min(rates) else ""
    return out


def training(c):
    t, cfg = c["m"]["training"], c["cfg"]
    p = t["steps"] / t["steps_per_epoch"] if t.get("steps_per_epoch") else None
    mant, exp = f"{t['lr']:e}".split("e")  # 8e-4 as the recipe writes it, not 0.0008
    blas = t.get("software", {}).get("packages", {}).get("libopenblas0-openmp")
    return c["tpl"]["training"].format(
        max_len=t["max_len"], short=t["max_len"] - 2, lr=f"{float(mant):g}e{int(exp)}",
        warmup=pct(t["warmup_steps"] / t["steps"], 0), steps=f"{t['steps']:,}",
        batch=t["batch"], passes=f"{p:.1f} passes over" if p else "passes not recorded;",
        tokens=f"{t['train_tokens'] / 1e6:.1f}", dropout=cfg["hidden_dropout_prob"],
        seen=f"{p:.1f} times" if p else "an unrecorded number of times",
        init=cfg["initializer_range"], seed=t["seed"], software=software_line(t),
        machine=machine_line(t.get("machine")), time=time_line(t), threads=t["threads"],
        blas=blas and f"OpenBLAS {blas}, OpenMP" or "OpenBLAS with OpenMP, version not recorded")


def heldout(c):
    h = c["m"]["heldout_mlm"]
    rows = [(name, f"{r['masked_tokens']:,}", f"{r['loss']:.3f}", pct(r["accuracy"]),
             f"{r['perplexity']:.0f}", f"{r['unigram_loss']:.3f} / {pct(r['unigram_accuracy'])}",
             f"{h['chance_loss']:.3f} / {pct(h['chance_accuracy'], 3)}")
            for name, r in (("packed windows ≤ 128 tokens", h["packed_128"]),
                            ("single sentences", h["single_sentences"]))]
    return c["tpl"]["heldout"].format(seed=h["masking_seed"], rows=table_rows(rows),
                                      chance_n=round(math.exp(h["chance_loss"])))


def head_tables(h):
    """Rows of the positional, per-layer and dependency tables."""
    ent, conf, special = (h[k] for k in ("head_mean_entropy_nats", "confidence",
                                         "argmax_on_special_fraction"))
    pos = [(f"{a['layer']}-{a['head']}", f"{a['r_star']:+d}", f"{a['freq']:.3f}",
            "yes" if a["positional"] else "no", f"{b['r_star']:+d}", f"{b['freq']:.3f}",
            f"{ent[str(a['layer']) + '-' + str(a['head'])]:.2f}")
           for a, b in zip(h["positional_heads"], h["positional_heads_nonspecial_keys"])]
    layers = [(e["layer"], f"{e['min']:.2f} – {e['max']:.2f}", span(conf[e["layer"]], " – "),
               span(special[e["layer"]], " – ")) for e in h["entropy_per_layer"]]
    deps = [(d["relation"], d["count"], d["best_head"], d["direction"],
             f"{100 * d['accuracy']:.1f}", f"{d['baseline_offset']:+d}",
             f"{100 * d['baseline_accuracy']:.1f}") for d in h["deps"]]
    return table_rows(pos), table_rows(layers), table_rows(deps)


def deps_coverage(notes):
    """'N sentences scored; K skipped because …' from attnscope-cli's stderr lines."""
    m = re.search(r"scored (\d+) sentences, skipped (\d+)", "\n".join(notes))
    if not m:
        return "Sentence counts not recorded."
    reasons = [r for _, r in re.findall(r"^\s+(\d+) (.+)$", "\n".join(notes), re.M)]
    why = f" because {and_list(reasons)}" if reasons and int(m[2]) else ""
    return f"{m[1]} sentences scored; {m[2]} skipped{why}."


COREF_GROUPS = {"all": "all", "pronoun": "pronouns", "proper": "proper nouns",
                "nominal": "other nominals"}
CLARK_COREF = (65, 69, 52, 27)  # Clark et al. 2019 §4.3: head 5-4, rule-based, head match, nearest


def coref_part(tpl, h):
    """The coreference paragraph and table, or a sentence saying it was not measured."""
    cr = h.get("coref")
    if not cr:
        return missing("heads.coref", "Coreference heads not measured")
    rows = [(COREF_GROUPS[g["group"]], g["scored"], g["best_head"],
             f"{100 * g['accuracy']:.1f} ({g['correct']}/{g['predicted']})",
             *(f"{100 * g[b]:.1f}" for b in ("nearest", "head_match", "sieve")))
            for g in cr["groups"]]
    al = cr["groups"][0]
    beats = [b for b in ("nearest", "head_match", "sieve") if al["accuracy"] > al[b]]
    names = {"nearest": "nearest mention", "head_match": "head match", "sieve": "sieve"}
    reading = (f"On all mentions the best head ({al['best_head']}) reaches {pct(al['accuracy'])}, "
               + (f"above {and_list([names[b] for b in beats])}" if beats
                  else "below every baseline")
               + f". For comparison, BERT-base's head 5-4 reaches {CLARK_COREF[0]}\xa0% in Clark "
                 f"et al. (CoNLL-2012 documents cut to 128 tokens), the rule-based "
                 f"sieve {CLARK_COREF[1]}\xa0%, head match {CLARK_COREF[2]}\xa0% and the nearest "
                 f"mention {CLARK_COREF[3]}\xa0%.")
    c = cr["counts"]
    return tpl["coref"].format(
        treebank=f"`{os.path.relpath(cr['treebank'], ROOT)}`", windows=c["windows"],
        limit=c.get("limit", cr["max_tokens"]), scored=c["scored_mentions"],
        mentions=c["mentions"], rows=table_rows(rows), reading=reading)


def importance_part(tpl, h):
    """The head-importance paragraph, map and pruning table, or a sentence saying it is missing."""
    im = h.get("importance")
    if not im:
        return missing("heads.importance", "Head importance not measured")
    delta = im["delta_loss"]
    layers = 1 + max(int(k.split("-")[0]) for k in delta)
    width = 1 + max(int(k.split("-")[1]) for k in delta)
    grid = [(layer, *(f"{delta[f'{layer}-{head}']:+.3f}" for head in range(width)))
            for layer in range(layers)]
    pruning = [(f"{100 * p['fraction']:.0f} %", p["removed"], f"{p['loss']:.3f}",
                pct(p["accuracy"])) for p in im["pruning"]]
    ranked = sorted(delta.items(), key=lambda kv: -kv[1])
    small = sum(1 for v in delta.values() if abs(v) < 0.01)
    half = min(im["pruning"], key=lambda p: abs(p["fraction"] - 0.5))
    reading = (f"The head that matters most alone is {ranked[0][0]} ({ranked[0][1]:+.3f} nats), "
               f"then {ranked[1][0]} ({ranked[1][1]:+.3f}); {small} of {len(delta)} heads change "
               f"the loss by less than 0.01 nats when removed alone. Removing "
               f"{half['removed']} heads together raises the loss from {im['clean_loss']:.3f} to "
               f"{half['loss']:.3f} nats and moves the accuracy from {pct(im['clean_accuracy'])} to "
               f"{pct(half['accuracy'])}.")
    return tpl["importance"].format(
        sentences=im["sentences"], fraction=pct(im["mask_fraction"], 0), seed=im["seed"],
        targets=f"{im['targets']:,}", clean_loss=f"{im['clean_loss']:.3f}",
        clean_accuracy=pct(im["clean_accuracy"]),
        header=" | ".join(f"head {i}" for i in range(width)),
        align="|".join(["---:"] * width), map=table_rows(grid), pruning=table_rows(pruning),
        reading=reading)


def reading_lead(c):
    """Whether the model uses context at all (MLM loss against unigram), and the heads' verdict."""
    mlm = c["m"].get("heldout_mlm", {}).get("packed_128")
    if not mlm:
        return ""
    gap, weak = mlm["unigram_loss"] - mlm["loss"], head_summary(c["m"]["heads"])[1]
    lead = (f"The model uses context (its held-out loss is {gap:.2f} nats below the unigram "
            f"baseline's)" if gap > 0 else "The model does not beat the unigram baseline")
    return lead + (", but its attention is only weakly specialised. " if weak else ". ")


def heads(c):
    h = c["m"]["heads"]
    positional, layers, deps = head_tables(h)
    return c["tpl"]["heads"].format(
        parity=f"{h['attnscope_vs_torch_max_abs_diff']:.1e}",
        parity_n=f"{h['parity_sentences']} held-out sentences" if "parity_sentences" in h
        else "the first held-out sentences analysed", sentences=h["sentences"],
        threshold=h.get("positional_threshold", 0.9), positional=positional, layers=layers,
        treebank=f"`{os.path.relpath(h['treebank'], ROOT)}`" if "treebank" in h
        else "the UD treebank", coverage=deps_coverage(h.get("deps_notes", [])), deps=deps,
        reading=reading_lead(c) + " ".join([positional_findings(h)[0], layer_findings(h)[0],
                                            deps_findings(h["deps"])[0]]),
        coref=coref_part(c["tpl"], h), importance=importance_part(c["tpl"], h))


def limitations(c):
    m, t, stats = c["m"], c["m"].get("training", {}), c["m"].get("corpus", {})
    kinds = {}
    for key, *_, kind in PACKAGES:
        kinds[kind] = kinds.get(kind, 0) + stats.get(key, {}).get("words", 0)
    what = and_list([k for k in sorted(kinds, key=kinds.get, reverse=True) if kinds[k]])
    mlm, tr = m.get("heldout_mlm", {}).get("packed_128"), loss_trend(t)
    out = [(f"Trained on {t['train_tokens'] / 1e6:.1f} M tokens" if t else "Trained")
           + f" of {what or 'Debian package prose'}: it is not a general English model"
           + (f", and its held-out MLM accuracy is {pct(mlm['accuracy'])}." if mlm else ".")]
    if tr:
        how = "was still falling" if tr["falling"] else "had levelled off"
        out.append(f"The training loss {how} at the end ({tr['from']:.2f} → {tr['to']:.2f} nats, "
                   f"means of four logged windows around steps {tr['steps'][0]} and "
                   f"{tr['steps'][1]})"
                   + (", so a longer run (`STEPS=…`) would likely reach a lower loss"
                      if tr["falling"] else "") + f"; this one ran {t['wall_minutes']:.0f} min.")
    else:
        out.append("metrics.json has no training-loss log long enough to judge whether a longer "
                   "run (`STEPS=…`) would help.")
    out.append(f"{c['tok']['cased'].capitalize()}, English only, "
               f"{c['cfg']['max_position_embeddings']} positions. Not for any use other than "
               "looking at attention.")
    return "## Limitations\n\n" + " ".join(out)


def rewrap(md, width=100):
    """Fill prose to the repo's 100 columns; tables, headings and code blocks stay as written."""
    # Only ASCII whitespace is collapsed, so pct()'s no-break spaces survive until the end.
    fill = lambda s, ind="": textwrap.fill(re.sub(r"[ \t\n]+", " ", s.strip()), width,
                                           subsequent_indent=ind, break_on_hyphens=False,
                                           break_long_words=False)
    out = []
    for block in md.strip().split("\n\n"):
        if block.startswith(("|", "#", "```")):
            out.append(block)
        elif block.startswith("- "):
            out.append("\n".join(fill(i, "  ") for i in re.split(r"\n(?=- )", block)))
        else:
            out.append(fill(block))
    return "\n\n".join(out).replace("\xa0", " ") + "\n"


def card(c):
    # A section whose metrics.json part is missing says so instead of failing.
    built = {key: build(c) if key in c["m"] else f"## {SECTIONS[key]}\n\n{missing(key)}"
             for key, build in (("training", training), ("heldout_mlm", heldout),
                                ("heads", heads))}
    return rewrap(c["tpl"]["card"].format(
        layers=c["cfg"]["num_hidden_layers"], intro=intro(c), **file_fields(c),
        architecture=architecture(c), data=training_data(c),
        training=built["training"], heldout=built["heldout_mlm"], heads=built["heads"],
        limitations=limitations(c)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir", help="folder with metrics.json, config.json, model.safetensors, "
                                    "vocab.txt; README.md is written there")
    out = ap.parse_args().out_dir
    c = {"m": load_json(f"{out}/metrics.json"), "cfg": load_json(f"{out}/config.json"),
         "st": safetensors_summary(f"{out}/model.safetensors"), "tok": tokenizer_summary(out),
         "tpl": load_template()}
    with open(f"{out}/README.md", "w", encoding="utf-8") as f:
        f.write(card(c))
    print(f"wrote {out}/README.md")


if __name__ == "__main__":
    main()
