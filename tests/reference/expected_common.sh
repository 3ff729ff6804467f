# Sourced by every run_<kind>_expected.sh (arguments PYTHON CHECKPOINTS_DIR OUT_DIR): strict
# mode, the arguments as $python, $checkpoints and $out (created), this folder as $here, and
# reference, the one way they run a reference script on a fixture checkpoint.
set -euo pipefail
python=$1 checkpoints=$2 out=$3
here=$(dirname "$0")
mkdir -p "$out"

# reference SCRIPT MODEL NAME [options]: SCRIPT on $checkpoints/MODEL with the options, writing
# $out/NAME.safetensors.
reference() {
    local script=$1 model=$2 name=$3
    shift 3
    "$python" "$here/$script" --model "$checkpoints/$model" "$@" --out "$out/$name.safetensors"
}
