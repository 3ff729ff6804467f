"""The pieces of the default model's recipe (packaging/default_model) that this recipe reuses,
imported from there rather than copied:

* `wordpiece`: the uncased WordPiece tokenizer and its Hugging Face files (the circuits model
  uses the default model's 8000-entry vocabulary);
* `metrics_file.merge_metrics`: every stage adds its section to MODEL_DIR/metrics.json;
* `bert_model.save_safetensors` / `load_safetensors`: the hand-written safetensors writer and
  reader (Debian 12 has no `safetensors` package);
* `default_train`: the learning-rate schedule, the log line and the machine/package facts the
  model card records.

The default recipe's modules import each other by plain names (`import model`), so its folder
goes on sys.path — after this one, whose files are named so as not to shadow them (this
recipe's model is `gpt2.py`, not `model.py`).
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.normpath(os.path.join(HERE, "..", "default_model"))
if DEFAULT_DIR not in sys.path:
    sys.path.append(DEFAULT_DIR)

import metrics_file  # noqa: E402  (packaging/default_model/metrics_file.py)
import wordpiece  # noqa: E402  (packaging/default_model/wordpiece.py)


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(DEFAULT_DIR, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bert_model = _load("default_model_model", "model.py")
default_train = _load("default_model_train", "train.py")

merge_metrics = metrics_file.merge_metrics
save_safetensors = bert_model.save_safetensors
load_safetensors = bert_model.load_safetensors
log = default_train.log
lr_at = default_train.lr_at
machine_info = default_train.machine_info
software_info = default_train.software_info
