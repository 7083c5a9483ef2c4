"""Model FLOPs and model-FLOPs utilisation (MFU) for the GPU comparison (docs/gpu.md). No torch.

The FLOPs are vitsim's layer graph, read from `vitsim model <preset> --json` (costmodel/
layer_graph.h, docs/layer-graph.md): a multiply-add is 2 FLOP and a training step of one sample
costs its forward plus its backward FLOPs (the backward rule lives in the layer graph; this file
only adds the two totals). Element-wise work is not counted, as in the usual MFU definition.

    MFU = training FLOPs per step / step time / peak FLOP/s

with the peak a matrix-multiply rate measured on the same GPU (matmul_peak.py), not a datasheet.
"""
import json

MODEL_KEYS = ("image_size", "patch_size", "channels", "width", "depth", "heads", "mlp_ratio",
              "classes")


class ModelFileError(ValueError):
    """A model JSON that is not what `vitsim model --json` writes; the message names file and key."""


def read_model(path):
    """The layer graph JSON of `vitsim model --json`: {"model": {...}, "totals": {...}}."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read ({e.strerror}) (hint: scripts/gpu-bundle writes "
                             "model/vit_b_16.json, or run `vitsim model vit_b_16 --json > FILE`)")
    except json.JSONDecodeError as e:
        raise ModelFileError(f"{path}: not JSON ({e.msg} at line {e.lineno})")
    for section, keys in (("model", MODEL_KEYS),
                          ("totals", ("forward_flop_per_sample", "backward_flop_per_sample"))):
        if not isinstance(doc, dict) or not isinstance(doc.get(section), dict):
            raise ModelFileError(f"{path}: /{section}: expected an object, got none")
        for key in keys:
            value = doc[section].get(key)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                hint = (" (hint: written by a vitsim older than backward_flop_per_sample; rebuild "
                        "and rerun scripts/gpu-bundle)" if key == "backward_flop_per_sample" else "")
                raise ModelFileError(f"{path}: /{section}/{key}: expected a number > 0, got "
                                     f"{json.dumps(value)}{hint}")
    return doc


def training_flop_per_sample(model_doc):
    """Forward + backward FLOPs of one sample, from the layer graph's totals."""
    t = model_doc["totals"]
    return float(t["forward_flop_per_sample"]) + float(t["backward_flop_per_sample"])


def training_flop_per_step(model_doc, micro_batch):
    """FLOPs of one optimizer step of `micro_batch` samples on one GPU (no accumulation)."""
    if micro_batch < 1:
        raise ValueError(f"micro-batch must be >= 1, got {micro_batch}")
    return micro_batch * training_flop_per_sample(model_doc)


def mfu(flop_per_step, step_time_s, peak_flop_per_s):
    """Achieved model FLOP/s over the peak: a fraction in (0, 1] for a sane measurement."""
    if step_time_s <= 0 or peak_flop_per_s <= 0:
        raise ValueError(f"step time and peak must be > 0, got {step_time_s} s and "
                         f"{peak_flop_per_s} FLOP/s")
    return flop_per_step / step_time_s / peak_flop_per_s
