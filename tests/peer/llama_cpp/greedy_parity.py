#!/usr/bin/python3
"""AttnScope against llama.cpp on one GGUF file: the file's tensor types as each reads them, and
the greedy continuation of a prompt, token for token.

Usage: greedy_parity.py --cli ATTNSCOPE_CLI --peer-dir DEST --model FILE.gguf --prompt 1,2,3
       [--n 32] [--tie 1e-3] [--int8-activations]

Runs `attnscope-cli info` and `attnscope-cli predict --token-ids PROMPT --continue N`, and
llama_peer.mjs `meta` and `greedy` (llama.cpp through node-llama-cpp, F32 KV cache, greedy
sampler only). The tensor-type mixes must be equal, and so must the continuations; where they
part, the step is a tie exception only if llama.cpp itself ranks AttnScope's token within
--tie of its own pick (its logits minus the top one), which is printed. AttnScope computes
with fp32 activations; llama.cpp's CPU products with K-quant weights quantize the activations
to 8 bits first, which moves its logits by about 1e-2, so files with K-quants get a --tie of
that size. With --int8-activations AttnScope runs its optional 8-bit mode, which quantizes
activations as llama.cpp does, and the tie margin can be llama.cpp's summation-order noise
(1e-3). Exit 0 pass, 1 fail, 77 when the peer is not installed.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def peer(args, command, *extra):
    out = subprocess.run(["node", os.path.join(HERE, "llama_peer.mjs"), command, args.model,
                          "--modules", args.peer_dir, *extra], capture_output=True, text=True)
    if out.returncode == 77:
        print("llama.cpp peer not installed: " + out.stderr.strip().splitlines()[-1])
        sys.exit(77)
    if out.returncode != 0:
        sys.exit(f"llama_peer {command} failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout)


def cli(args, *extra):
    out = subprocess.run([args.cli, *extra], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"attnscope-cli {extra[0]} failed: {out.stderr.strip()[-400:]}")
    return out.stdout


def type_mix_of_peer(meta):
    counts = {}
    for t in meta["tensors"]:
        counts[t["type"]] = counts.get(t["type"], 0) + 1
    return sorted(counts.items())


def type_mix_of_cli(info):
    line = re.search(r"^stored dtype:\s+(.*?)( \(|$)", info, re.M).group(1)
    return sorted((t, int(n)) for t, n in (part.split("\u00d7") for part in line.split(" + ")))


def compare_greedy(ours, theirs, steps, tie):
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a == b:
            continue
        top = {c["id"]: c["logit_minus_max"] for c in steps[i]["top"]}
        print(f"step {i}: attnscope {a}, llama.cpp {b}; llama.cpp's top-5 (id: logit - max): "
              + ", ".join(f"{k}: {v:.2e}" for k, v in top.items()))
        if a in top and top[a] > -tie:
            print(f"tie exception at step {i}: the two tokens are within {tie} in llama.cpp's "
                  "logits; later tokens are not compared")
            return True, i
        return False, i
    return len(ours) == len(theirs), len(ours)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cli", required=True)
    p.add_argument("--peer-dir", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--prompt", required=True)
    p.add_argument("--n", type=int, default=32)
    p.add_argument("--tie", type=float, default=1e-3)
    p.add_argument("--int8-activations", action="store_true")
    args = p.parse_args()
    meta = peer(args, "meta")
    ours_mix = type_mix_of_cli(cli(args, "info", args.model))
    if ours_mix != type_mix_of_peer(meta):
        sys.exit(f"tensor types differ: attnscope {ours_mix}, llama.cpp {type_mix_of_peer(meta)}")
    greedy = peer(args, "greedy", "--prompt-ids", args.prompt, "--n", str(args.n))
    mode = ["--int8-activations"] if args.int8_activations else []
    out = cli(args, "predict", args.model, "--token-ids", args.prompt, "--continue", str(args.n),
              *mode)
    ours = [int(x) for x in re.search(r"^ids:(.*)$", out, re.M).group(1).split()]
    print(f"{os.path.basename(args.model)}: {ours_mix}")
    print("attnscope:", " ".join(map(str, ours)))
    print("llama.cpp:", " ".join(map(str, greedy["ids"])))
    ok, equal = compare_greedy(ours, greedy["ids"], greedy["steps"], args.tie)
    if not ok:
        sys.exit("greedy continuations differ")
    print(f"equal over {equal} of {len(ours)} tokens")


if __name__ == "__main__":
    main()
