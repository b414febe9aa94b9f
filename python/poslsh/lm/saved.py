"""Kept models (`poslsh lm --keep-models DIR`): a trained model's weights as a
PyTorch state dict, STEM.pt, beside STEM.json, what is needed to run it again:
its shape, its attention variant (the arguments of poslsh.lm.attention.Bias)
and how it was trained.

    model, bias, config = poslsh.lm.load_model("kept/lsh_s4_seed0")
    logits = model(tokens, [bias(n, layer, draw) for layer in range(model.shape.layers)])
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from .attention import Bias
from .model import ByteTransformer, ModelShape


def stem_of(path: str | Path) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".pt", ".json") else p


def save_model(path: str | Path, model: ByteTransformer, bias: Bias, training: dict) -> None:
    """STEM.pt and STEM.json, each written atomically."""
    stem = stem_of(path)
    stem.parent.mkdir(parents=True, exist_ok=True)
    shape = model.shape
    config = {"shape": {"layers": shape.layers, "heads": shape.heads, "width": shape.width,
                        "positions": shape.positions},
              "bias": bias.arguments(), "training": training}
    tmp = stem.with_suffix(f".{os.getpid()}.tmp")
    torch.save(model.state_dict(), tmp)
    os.replace(tmp, stem.with_suffix(".pt"))
    tmp.write_text(json.dumps(config, indent=1) + "\n")
    os.replace(tmp, stem.with_suffix(".json"))


def load_model(path: str | Path) -> tuple[ByteTransformer, Bias, dict]:
    """The model of STEM.pt / STEM.json (either path, or STEM), its training bias and
    its config."""
    stem = stem_of(path)
    config = json.loads(stem.with_suffix(".json").read_text())
    model = ByteTransformer(ModelShape(**config["shape"]))
    model.load_state_dict(torch.load(stem.with_suffix(".pt")))
    model.eval()
    args = dict(config["bias"])
    args["cost_draws"] = tuple(args["cost_draws"])
    return model, Bias(**args), config
