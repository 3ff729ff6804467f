"""MODEL_DIR/metrics.json, which each stage of the recipe adds its section to.

The model card (write_card.py) is written from this file alone, so every stage merges into it
rather than replacing it.
"""

import json
import os


def merge_metrics(model_dir, sections):
    """Sets the given top-level sections of MODEL_DIR/metrics.json, keeping the others."""
    path = f"{model_dir}/metrics.json"
    metrics = {}
    if os.path.exists(path):
        with open(path) as f:
            metrics = json.load(f)
    metrics.update(sections)
    with open(path, "w") as f:
        json.dump(metrics, f, indent=1)
        f.write("\n")
