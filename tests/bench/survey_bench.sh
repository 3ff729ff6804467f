#!/usr/bin/env bash
# Survey speed (issue 18): attnscope-cli survey on the first MAX sentences of a treebank (default
# 500) with a BERT-base-sized model at THREADS threads (default 2), REPEATS runs (default 3);
# prints each run's wall and CPU time (/usr/bin/time) and the median, min and max wall time, with
# the load average before and after (the machine should be quiet: see README.md here).
# usage: survey_bench.sh CLI MODEL_DIR TREEBANK [REPEATS] [MAX_SENTENCES] [THREADS]
set -euo pipefail
cli=$1 model=$2 treebank=$3 repeats=${4:-3} max=${5:-500} threads=${6:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
walls=()
for ((r = 0; r < repeats; ++r)); do
    /usr/bin/time -f '%e %U %S %P %M' -o "$out/time" "$cli" survey "$model" "$treebank" \
        --max-sentences "$max" --threads "$threads" --out "$out/survey.csv" >"$out/stdout" \
        2>"$out/log"
    read -r wall user sys cpu rss <"$out/time"
    printf 'run %d: %s s wall, %s s user, %s s sys, %s CPU, %d MiB peak RSS\n' \
        $((r + 1)) "$wall" "$user" "$sys" "$cpu" $((rss / 1024))
    walls+=("$wall")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -o 'survey of .* sentences' "$out/log" | head -1
printf '%s\n' "${walls[@]}" | sort -g | awk -v t="$threads" '
    {a[NR] = $1} END {printf "median %.1f s (min %.1f, max %.1f) over %d runs at %d threads\n",
                      a[int((NR + 1) / 2)], a[1], a[NR], NR, t}'
