#!/usr/bin/python3
"""A copy of a fixture checkpoint whose transformed value vectors f^h(x) = v W_O^h (rule A4 of
attribution_reference.py) are FACTOR^2 times larger: the value projection (weight and bias) and
the attention output projection's weight are multiplied by FACTOR, b_O and everything else kept.

The norm-based maps (A5) scale with ||f||, and so does the float32 error of any float32
implementation (about 1e-7 relative: float32's precision times the attention probabilities' own
float32 error). Such a checkpoint is where an absolute 1e-5 tolerance stops holding and the
documented bound, 1e-5 * max(1, ||f^h(x_j)||), is what a parity test must use.

  attribution_large_values.py SRC_DIR DST_DIR FACTOR
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402


def is_value(name):
    """Value projections (weight and bias) of every layer, by each family's tensor names."""
    return any(part in name for part in (".attention.self.value.", ".attention.v_lin.",
                                         ".self_attn.v_proj."))


def is_output(name):
    """The attention output projections' weights (their biases, b_O, stay)."""
    return name.endswith(".weight") and any(
        part in name for part in (".attention.output.dense.", ".attention.out_lin.",
                                  ".self_attn.o_proj.", ".attn.c_proj."))


def scale_tensors(tensors, factor):
    """{name: tensor} with the value and output projections scaled (GPT-2's fused c_attn:
    its last third along the output dimension, weight and bias, is v)."""
    out, hits = {}, 0
    for name, t in tensors.items():
        if is_value(name) or is_output(name):
            t, hits = t * factor, hits + 1
        elif ".attn.c_attn." in name:
            t = t.clone()
            t[..., 2 * t.shape[-1] // 3:] *= factor
            hits += 1
        out[name] = t
    if hits == 0:
        raise ValueError("no value or output projection found to scale")
    return out


def write_scaled(src, dst, factor):
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        # The other references' outputs beside the weights (reference_*, circuits_1, patching_1,
        # ...) belong to the unscaled weights, and other fixtures write them while this runs:
        # only the weights (model.safetensors or its shards) are read.
        if not name.startswith("model") and name.endswith(".safetensors"):
            continue
        if not os.path.isfile(path):
            continue
        if name.endswith(".safetensors"):
            tensors = st_io.load_file(path)
            _, meta, _ = st_io.read_header(path)
            st_io.save_file(scale_tensors(tensors, factor), os.path.join(dst, name),
                            metadata=meta)
        else:
            shutil.copyfile(path, os.path.join(dst, name))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: attribution_large_values.py SRC_DIR DST_DIR FACTOR")
    try:
        write_scaled(sys.argv[1], sys.argv[2], float(sys.argv[3]))
    except (ValueError, OSError, KeyError) as e:
        sys.exit(f"attribution_large_values.py: {e}")


if __name__ == "__main__":
    main()
