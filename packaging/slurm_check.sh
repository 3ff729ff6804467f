#!/usr/bin/env bash
# Runs the README's sharded corpus job ("Corpus jobs across machines") on a one-node Slurm
# cluster made from Debian 12's packages: an array job of N `deps --shard K/N` parts, then a
# merge job that waits for them with --dependency=afterok, and checks that the merged CSV is
# byte for byte what one plain `deps` run writes. Prints PASS or FAIL; exits 1 on failure.
#
# Usage: packaging/slurm_check.sh [--keep] [--max-sentences M] [CLI [MODEL [TREEBANK [N [WORKDIR]]]]]
#   CLI       attnscope-cli to run   (default: build-test/app/cli/attnscope-cli in the repository)
#   MODEL     model folder           (default: build-test/tests/fixtures/checkpoints/bert_f32)
#   TREEBANK  CoNLL-U file; "generated" for a small one written into WORKDIR; "auto" (default)
#             for the shared UD English EWT dev file if present, else the generated one
#   N         number of shards       (default 4)
#   WORKDIR   where the jobs run and write their files (default /tmp/attnscope-slurm-check)
#   --max-sentences M  passed to every deps run (default 60; 0 = the whole treebank)
#   --keep    leave munged, slurmctld and slurmd running at the end (default: stop them)
#
# Run as root on Debian 12 (it apt-get installs slurm-wlm and munge if missing, and writes
# /etc/slurm/slurm.conf). The daemons are started directly, not through systemd, so it also
# works where PID 1 is not an init system (containers, these VMs). It refuses to touch a
# slurm.conf it did not write, or a slurmctld/slurmd it did not start.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
keep=0 max_sentences=60 positional=()
while (($#)); do
    case "$1" in
    --keep) keep=1 ;;
    --max-sentences)
        max_sentences="${2:?--max-sentences needs a number}"
        shift
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "slurm_check: unknown option $1 (see --help)" >&2
        exit 2
        ;;
    *) positional+=("$1") ;;
    esac
    shift
done
cli="$(realpath "${positional[0]:-$repo/build-test/app/cli/attnscope-cli}")"
model="$(realpath "${positional[1]:-$repo/build-test/tests/fixtures/checkpoints/bert_f32}")"
treebank="${positional[2]:-auto}"
shards="${positional[3]:-4}"
work="$(realpath -m "${positional[4]:-/tmp/attnscope-slurm-check}")"

die() {
    echo "slurm_check: $*" >&2
    exit 1
}
[[ $EUID -eq 0 ]] || die "run as root (it installs packages and starts the Slurm daemons)"
[[ -x $cli ]] || die "no executable attnscope-cli at $cli"
[[ -d $model ]] || die "no model folder at $model"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, not '$shards'"
[[ $max_sentences =~ ^[0-9]+$ ]] || die "--max-sentences must be a number"

# --- Packages --------------------------------------------------------------------------------
# slurm-wlm is Debian's metapackage for slurmctld, slurmd and the client tools; munge is the
# authentication Slurm's default auth/munge plugin needs. Only what is missing is installed.
missing=()
for pkg in slurm-wlm slurmctld slurmd slurm-client munge; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    [[ $status == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
    for pkg in "${missing[@]}"; do
        # "Candidate: (none)" means apt has no such package here (wrong release, no mirror).
        # The output is read whole first: grep -q would close the pipe early (pipefail).
        policy="$(apt-cache policy "$pkg")"
        [[ $policy == *"Candidate: "[0-9]* ]] || die "apt has no candidate for $pkg"
    done
    echo "slurm_check: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Daemons ---------------------------------------------------------------------------------
# PID 1 decides nothing here: every daemon is started in the foreground (-F / -D) as a child of
# this script, so its pid is known and the trap ends exactly these processes.
echo "slurm_check: Debian $(cat /etc/debian_version), kernel $(uname -r), PID 1 is" \
    "$(ps -p 1 -o comm=); starting the daemons directly"
started_pids=()
cleanup() {
    local rc=$?
    if ((keep)); then
        echo "slurm_check: --keep: leaving pids ${started_pids[*]:-none} running"
    else
        # A finished job's slurmstepd still reports to slurmctld for a moment after squeue
        # drops the job; give it that moment. (Any slurmstepd is ours: another slurmd was refused.)
        for _ in $(seq 20); do
            pgrep -x slurmstepd >/dev/null || break
            sleep 0.5
        done
        # Reverse order: slurmd, slurmctld, then munged, which both of them need until the end.
        for ((i = ${#started_pids[@]} - 1; i >= 0; i--)); do
            kill "${started_pids[i]}" 2>/dev/null || true
            wait "${started_pids[i]}" 2>/dev/null || true
        done
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Slurm's state lives under /var/spool/slurm; its logs in WORKDIR so a failure can show them
# (*.log: the daemons' own logs; *.out: what they print before the log is open).
mkdir -p "$work" /var/spool/slurm/ctld /var/spool/slurm/d
chown slurm:slurm /var/spool/slurm/ctld
logs="$work/logs"
mkdir -p "$logs"
chown slurm:slurm "$logs" # slurmctld runs as SlurmUser=slurm and writes its log there
show_logs() {
    local f
    for f in "$logs"/*; do
        if [[ -f $f ]]; then
            echo "--- $f (last 15 lines)"
            tail -n 15 "$f"
        fi
    done >&2
}

# munge: the package's postinst usually makes the key; make one if it did not. munged runs as
# the munge user, as its own service would; its socket directory is on /run, a tmpfs.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    if [[ ! -s /etc/munge/munge.key ]]; then
        mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    # setpriv execs munged, so the pid kept is munged's own.
    setpriv --reuid=munge --regid=munge --init-groups munged --foreground >"$logs/munged.out" 2>&1 &
    started_pids+=($!)
    for _ in $(seq 50); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.2
    done
    munge -n | unmunge >/dev/null || {
        show_logs
        die "munged did not come up"
    }
fi

# Another cluster's daemons would answer our commands with their configuration: refuse.
for d in slurmctld slurmd; do
    pgrep -x "$d" >/dev/null && die "a $d is already running (not started by this script)"
done

# A minimal one-node configuration. Memory is left out of scheduling (CR_CPU) so the shards run
# side by side, one per CPU; proctrack/linuxproc and task/none need no cgroups; no accounting.
node="$(hostname -s)"
cpus="$(nproc)"
mem_mb=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) * 9 / 10 / 1024))
conf=/etc/slurm/slurm.conf
marker="# Written by attnscope packaging/slurm_check.sh"
if [[ -e $conf ]] && ! grep -qxF "$marker" "$conf"; then
    die "$conf exists and was not written by this script; move it away first"
fi
mkdir -p /etc/slurm
cat >"$conf" <<EOF
$marker
ClusterName=attnscope-check
SlurmctldHost=$node(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurm/ctld
SlurmdSpoolDir=/var/spool/slurm/d
SlurmctldPidFile=/var/spool/slurm/ctld/slurmctld.pid
SlurmdPidFile=/var/spool/slurm/d/slurmd.pid
SlurmctldLogFile=$logs/slurmctld.log
SlurmdLogFile=$logs/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# -c: start from a clean state, without jobs a previous run may have left behind.
slurmctld -D -c >"$logs/slurmctld.out" 2>&1 &
started_pids+=($!)
slurmd -D >"$logs/slurmd.out" 2>&1 &
started_pids+=($!)

state=""
for _ in $(seq 60); do
    state="$(sinfo -h -n "$node" -o %T 2>/dev/null || true)"
    [[ $state == idle ]] && break
    sleep 1
done
if [[ $state != idle ]]; then
    sinfo -N -l >&2 || true
    show_logs
    die "node $node is not idle after 60 s (state: '${state:-no answer}')"
fi
echo "slurm_check: $(sinfo --version), node $node idle: $cpus CPUs, RealMemory=$mem_mb MB"
echo "slurm_check: $cli --version: $("$cli" --version)"

# --- Treebank --------------------------------------------------------------------------------
# A generated treebank (short sentences, one fixed tree) keeps the check self-contained where
# the shared UD data is absent; every sentence fits the test model's 40 positions.
write_treebank() {
    local dets=(The A This That) nouns=(cat dog man woman child bird)
    local verbs=(saw liked found took) adjs=(small red old new)
    for i in $(seq 0 29); do
        local d1=${dets[i % 4]} n1=${nouns[i % 6]} v=${verbs[i % 4]}
        local a=${adjs[(i / 4) % 4]} n2=${nouns[(i + 3) % 6]}
        printf '# sent_id = gen-%d\n# text = %s %s %s the %s %s.\n' \
            "$i" "$d1" "$n1" "$v" "$a" "$n2"
        printf '%s\t%s\t%s\t%s\t_\t_\t%s\t%s\t_\t%s\n' \
            1 "$d1" "${d1,,}" DET 2 det _ \
            2 "$n1" "$n1" NOUN 3 nsubj _ \
            3 "$v" "$v" VERB 0 root _ \
            4 the the DET 6 det _ \
            5 "$a" "$a" ADJ 6 amod _ \
            6 "$n2" "$n2" NOUN 3 obj SpaceAfter=No \
            7 . . PUNCT 3 punct _
        echo
    done
}
if [[ $treebank == auto ]]; then
    treebank=/work/shared/data/ud/UD_English-EWT/en_ewt-ud-dev.conllu
    [[ -f $treebank ]] || treebank=generated
fi
if [[ $treebank == generated ]]; then
    treebank="$work/generated.conllu"
    write_treebank >"$treebank"
fi
treebank="$(realpath "$treebank")"
[[ -f $treebank ]] || die "no treebank at $treebank"
limit=()
if ((max_sentences > 0)); then limit=(--max-sentences "$max_sentences"); fi
echo "slurm_check: model $model, treebank $treebank${limit[*]:+ ${limit[*]}}, $shards shards, in $work"

# --- The README's jobs -----------------------------------------------------------------------
cd "$work"
rm -f part*.part.json merged.csv plain.csv slurm-*.out deps_shards.sh
# The array script has the README's shape; one CPU and one thread per shard here, so the shards
# share this small node. printf %q quotes the paths for the job's shell.
cat >deps_shards.sh <<EOF
#!/bin/bash
# deps_shards.sh
#SBATCH --array=0-$((shards - 1))
#SBATCH --cpus-per-task=1
$(printf '%q' "$cli") deps $(printf '%q' "$model") $(printf '%q' "$treebank")${limit[*]:+ ${limit[*]}} --threads 1 --shard "\$SLURM_ARRAY_TASK_ID"/$shards \\
    --out part"\$SLURM_ARRAY_TASK_ID".part.json
EOF
jobid=$(sbatch --parsable deps_shards.sh)
merge_out=$(sbatch --parsable --dependency=afterok:"$jobid" \
    --wrap "$(printf '%q' "$cli") merge part*.part.json --out merged.csv")
mergeid=${merge_out%%;*} # --parsable prints "id" or "id;cluster"
echo "slurm_check: array job $jobid (tasks 0-$((shards - 1))), merge job $mergeid (afterok:$jobid)"
echo "--- deps_shards.sh"
cat deps_shards.sh

# Without accounting there is no sacct: poll squeue until both jobs have left the queue. A merge
# held for DependencyNeverSatisfied (a shard failed) would wait forever, so that ends the wait.
deadline=$((SECONDS + 600))
first_reason=""
while [[ -n "$(squeue -h -j "$jobid,$mergeid" -o %i 2>/dev/null || true)" ]]; do
    reason="$(squeue -h -j "$mergeid" -o '%T (%r)' 2>/dev/null || true)"
    if [[ -z $first_reason && -n $reason ]]; then
        first_reason="$reason"
        echo "slurm_check: merge job $mergeid first seen $first_reason"
    fi
    if [[ $reason == *DependencyNeverSatisfied* ]]; then
        scancel "$mergeid" || true
        break
    fi
    ((SECONDS < deadline)) || {
        squeue >&2
        scancel "$jobid" "$mergeid" || true
        die "the jobs did not finish within 600 s"
    }
    sleep 1
done
# The finished jobs stay visible to scontrol for MinJobAge (300 s): where each task ran, how.
scontrol -o show job "$jobid" | tr ' ' '\n' |
    awk -F= '$1 ~ /^(JobId|ArrayTaskId|JobState|ExitCode|NodeList)$/ {
        printf "%s%s", (($1 == "JobId") ? "" : " "), $0; if ($1 == "NodeList") print "" }'
scontrol -o show job "$mergeid" | tr ' ' '\n' |
    awk -F= '$1 ~ /^(JobId|JobState|ExitCode|NodeList)$/ {
        printf "%s%s", (($1 == "JobId") ? "" : " "), $0; if ($1 == "NodeList") print "" }'
# What a terminal shows of each job's output: the progress bar's \r rewrites are dropped.
for f in slurm-*.out; do
    if [[ -s $f ]]; then
        echo "--- $f"
        sed 's/.*\r//' "$f"
    fi
done
parts=(part*.part.json)
# A failed shard shows in the job outputs above; the daemons' logs stay in WORKDIR/logs.
[[ -f merged.csv ]] || die "FAIL: the merge job wrote no merged.csv (parts: ${parts[*]}; logs in $logs)"
echo "slurm_check: parts ${parts[*]}"

# --- The comparison --------------------------------------------------------------------------
if ! "$cli" deps "$model" "$treebank" "${limit[@]}" --out plain.csv 2>plain.log; then
    cat plain.log >&2
    die "FAIL: the plain run failed"
fi
if cmp merged.csv plain.csv; then
    echo "slurm_check: merged.csv ($(wc -l <merged.csv) lines, $(wc -c <merged.csv) bytes) == plain.csv"
    echo "PASS"
else
    echo "FAIL: merged.csv differs from plain.csv"
    exit 1
fi
