#!/usr/bin/env python3
"""Writes the heterogeneous case of bench/RESULTS.md's scale table: a cluster of half HGX H200 and
half HGX H100 nodes (platforms/h200-cluster.json's node, NIC and fabric figures; the H100 half with
h100-sxm GPUs) and a scenario of one configuration on all its GPUs, hierarchical all-reduce,
amp-bf16, with a micro-batch per rank drawn from 32/48/64 by a seeded generator. Costs: a
`vitsim reproduce` output's costs.json (it holds h200-sxm and h100-sxm at amp-bf16).

Usage: bench/sim/mixed_cluster.py GPUS OUT_DIR [SEED]   (GPUS a multiple of 16; seed 70)
Then:  vitsim simulate OUT_DIR/mixed-GPUS.json --costs REPRODUCE_OUT/costs.json --progress never
"""
import json
import os
import random
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    gpus, out = int(sys.argv[1]), sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 70
    if gpus < 16 or gpus % 16:
        sys.exit("GPUS must be a positive multiple of 16 (8 GPUs a node, half the nodes H100)")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "platforms", "h200-cluster.json")) as f:
        cluster = json.load(f)
    h200 = cluster["nodes"][0]
    h200["count"] = gpus // 16
    h100 = json.loads(json.dumps(h200))
    h100["name"] = "h100-"
    h100["description"] = "HGX H100 (the H200 node's links)"
    h100["gpus"] = [{"device": "h100-sxm", "count": 8}]
    cluster["nodes"] = [h200, h100]
    cluster["name"] = "mixed-h200-h100"
    cluster["context"] = {"written_by": "bench/sim/mixed_cluster.py",
                          "source": "platforms/h200-cluster.json"}
    draw = random.Random(seed)
    scenario = {
        "schema": "vitsim.scenario", "schema_version": 2,
        "context": {"written_by": "bench/sim/mixed_cluster.py", "source": "seed %d" % seed},
        "name": "mixed-%d" % gpus,
        "description": "Half H200, half H100 nodes; per-rank micro-batches from 32/48/64.",
        "cluster": "mixed-cluster-%d.json" % gpus,
        "model": {"preset": "vit_b_16"},
        "configurations": [{
            "label": "mixed", "gpus": gpus, "precision": "amp-bf16", "collective": "hierarchical",
            "images": 134217728,
            "per_rank_micro_batch": [draw.choice((32, 48, 64)) for _ in range(gpus)]}],
    }
    os.makedirs(out, exist_ok=True)
    for name, doc in (("mixed-cluster-%d.json" % gpus, cluster), ("mixed-%d.json" % gpus, scenario)):
        tmp = os.path.join(out, name + ".tmp")
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, os.path.join(out, name))


if __name__ == "__main__":
    main()
