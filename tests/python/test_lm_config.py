"""The language models' settings (poslsh.lm.config) and cells (poslsh.lm.experiment):
one place defines, documents and checks every setting; the cells are what `poslsh lm`
runs, in its order, with its labels and file names. No torch needed."""
import pathlib
import re

import pytest

from poslsh.lm import config, experiment
from poslsh.lm.config import BenchConfig, LmConfig
from poslsh.lm.errors import UsageError

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_options_table_is_the_dataclass_in_order_with_its_defaults():
    table = config.options_table(LmConfig)
    assert [o["name"] for o in table][:5] == ["--corpus", "--variant", "--s", "--seed", "--seeds"]
    by_name = {o["name"]: o for o in table}
    assert by_name["--lr"] == {"name": "--lr", "type": "FLOAT", "list": False, "default": "0.003",
                               "help": "Peak learning rate (> 0)"}
    assert by_name["--s"]["default"] == "[1,4,10,20]" and by_name["--s"]["list"]
    assert by_name["--variant"]["default"] == "[" + ",".join(config.VARIANTS) + "]"
    assert by_name["--sigmas"]["default"] is None and by_name["--keep-models"]["default"] is None
    assert len(table) == len(LmConfig.__dataclass_fields__)
    assert [o["name"] for o in config.options_table(BenchConfig)][0] == "--n"


def test_given_texts_are_parsed_to_the_fields_types():
    c = config.from_given(LmConfig, {"--s": ["2", "4"], "--lr": "1e-3", "--variant": ["exact"],
                                     "--heads": "2", "--width": "8"})
    assert c.s == (2, 4) and c.lr == 1e-3 and c.variant == ("exact",) and c.steps == 400
    assert c.head_sigmas() == (16.0, 256.0)  # Press et al.'s, from the core


@pytest.mark.parametrize("given, named", [
    ({"--steps": "0"}, "--steps must be >= 1"),
    ({"--steps": "1.5"}, "--steps expects an integer"),
    ({"--lr": "nan"}, "--lr must be a finite number > 0"),
    ({"--margin": "inf"}, "--margin must be a finite number > 0"),
    ({"--variant": ["exact", "alibi"]}, "--variant accepts"),
    ({"--heads": "3"}, "--width must be a multiple of --heads"),
    ({"--s": ["0"]}, "--s must be an integer in [1, 2^31 - 1]"),
    ({"--finetune-from": ["window"]}, "--finetune-from accepts exact, nobias"),
    ({"--context-probe": ["0"]}, "--context-probe must be >= 1"),
    ({"--finetune-from": ["exact", "exact"]}, "--finetune-from accepts exact, nobias, each at most once"),
    ({"--draws": "per-layer"}, "--draws accepts shared, per-head"),
    ({"--ngram-order": "7"}, "--ngram-order accepts -1"),
    ({"--eval-batches": "1"}, "--eval-batches must be >= 2"),
    ({"--layer": "2"}, "unknown option --layer"),
])
def test_a_bad_setting_is_one_usage_error_naming_its_option(given, named):
    with pytest.raises(UsageError) as e:
        config.from_given(LmConfig, given)
    assert named in str(e.value) and "\n" not in str(e.value)


def test_a_config_is_frozen_once_checked():
    c = LmConfig()
    with pytest.raises(AttributeError):
        c.steps = 0


def test_cells_seed_by_seed_then_fine_tunes_then_the_baselines():
    c = LmConfig(variant=("exact", "lsh", "nobias", "sinusoidal"), s=(2,), seeds=2, finetune_steps=2,
                 finetune_from=("exact", "nobias"), ngram_order=2)
    cells = experiment.trainings(c)
    seed0 = [t.label() for t in cells if t.seed == 0 and t.phase != "baseline"]
    assert seed0 == ["exact seed=0", "lsh s=2 seed=0", "nobias seed=0", "sinusoidal seed=0",
                     "finetune exact seed=0", "finetune lsh s=2 seed=0",
                     "finetune from nobias exact seed=0", "finetune from nobias lsh s=2 seed=0"]
    assert cells[-1] == experiment.Training("ngram", 0, 0, "baseline")
    assert [t.file_stem() for t in cells[4:8]] == ["finetune_exact_seed0", "finetune_lsh_s2_seed0",
                                                   "finetune_from_nobias_exact_seed0",
                                                   "finetune_from_nobias_lsh_s2_seed0"]
    # The bases cost twice a training, so they start first; fine-tunes last.
    costs = [experiment.cost(c, t) for t in cells[:8]]
    assert costs == [801.0, 401.0, 801.0, 401.0, 2.0, 2.0, 2.0, 2.0]
    assert len(cells) == 2 * 8 + 1


def test_rows_lead_with_the_cells_columns_and_end_with_margin_and_timings():
    assert experiment.COLUMNS[:5] == ["variant", "train_s", "seed", "phase", "steps"]
    assert experiment.COLUMNS[-3:] == ["margin"] + experiment.TIMING_COLUMNS
    assert experiment.finite_or_text(float("nan")) == "nan" and experiment.finite_or_text(2.5) == 2.5


VARIANT_LITERAL = re.compile(r'"(exact|lsh|nobias|fixed|window|fixed-block|sinusoidal)"')


def lists_every_variant(text):
    """Whether some 6 consecutive lines name all seven variants as string literals."""
    lines = text.splitlines()
    return any(len(set(VARIANT_LITERAL.findall("\n".join(lines[i:i + 6])))) == 7 for i in range(len(lines)))


def test_no_second_list_of_the_variants():
    assert lists_every_variant('VARIANTS = ("exact", "lsh", "nobias", "fixed",\n"window", "fixed-block", '
                               '"sinusoidal")')  # the control
    sources = [p for d in ("python", "experiments", "src", "apps")
               for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".cpp", ".h")]
    listing = sorted(str(p.relative_to(ROOT)) for p in sources if lists_every_variant(p.read_text()))
    assert listing == ["python/poslsh/lm/config.py"]
