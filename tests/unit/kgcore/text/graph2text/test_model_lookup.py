"""The shipped Graph2Text model is found in the documented model order (issue 39, item 1):
argument, ``$KG_G2T_MODEL``, the project's ``models/``, the user model folder, the wheel's copy;
its name never goes to the Hub."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text.model import resolve_model_folder
from kglocal import locations
from kglocal.locations import G2T_MODEL_NAME, G2T_SMOLLM2_NAME, graph2text_model_dir
from tests.support.paths import REPO

SHIPPED = REPO / "models" / G2T_MODEL_NAME


def model_folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    return folder


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Every place of the model order holding a model, and the lookup pointed at them."""
    found = {
        "argument": model_folder(tmp_path, "argument"),
        "env": model_folder(tmp_path, "env"),
        "project": model_folder(tmp_path / "project", G2T_MODEL_NAME),
        "user": model_folder(tmp_path / "user", G2T_MODEL_NAME),
        "packaged": model_folder(tmp_path / "wheel", G2T_MODEL_NAME),
    }
    monkeypatch.setenv("KG_G2T_MODEL", str(found["env"]))
    monkeypatch.setattr(locations, "project_models_dir", lambda: tmp_path / "project")
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "user"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: found["packaged"])
    return found


ORDER = ("argument", "env", "project", "user", "packaged")


@pytest.mark.parametrize("first", ORDER)
def test_the_first_place_in_the_order_that_holds_the_model_wins(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    for earlier in ORDER[: ORDER.index(first)]:  # the places before `first` hold nothing
        if earlier == "env":
            monkeypatch.delenv("KG_G2T_MODEL")
        elif earlier != "argument":
            (places[earlier] / "config.json").unlink()
    argument = places["argument"] if first == "argument" else None
    assert graph2text_model_dir(argument) == places[first]


def test_without_any_copy_the_error_lists_every_place(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KG_G2T_MODEL")
    for name in ("project", "user", "packaged"):
        (places[name] / "config.json").unlink()
    with pytest.raises(ConfigurationError) as err:
        graph2text_model_dir()
    for name in ("project", "user", "packaged"):
        assert str(places[name]) in str(err.value)


@pytest.mark.parametrize("name", [G2T_MODEL_NAME, f"models/{G2T_MODEL_NAME}"])
def test_the_shipped_name_is_found_from_any_folder_and_never_sent_to_the_hub(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # models/... is not a folder here
    monkeypatch.setenv("KG_G2T_MODEL", str(model_folder(tmp_path, "other")))
    monkeypatch.setattr(locations, "project_models_dir", lambda: None)  # as in a wheel
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "no-user-models"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: SHIPPED)
    # Named explicitly, the shipped model wins over $KG_G2T_MODEL.
    assert resolve_model_folder(name) == SHIPPED


def test_in_a_checkout_the_project_models_folder_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KG_G2T_MODEL", raising=False)
    assert graph2text_model_dir() == SHIPPED


def test_the_wheel_copy_path_is_where_the_wheel_puts_the_models() -> None:
    import tomllib

    packaged = locations.packaged_graph2text_dir()
    assert packaged.parts[-3:] == ("kglocal", "models", G2T_MODEL_NAME)
    assert packaged.is_relative_to(Path(locations.__file__).parent)
    root = Path(locations.__file__).resolve().parents[1]
    build = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    shipped = build["targets"]["wheel"]["force-include"]
    assert shipped == {
        f"models/{name}": f"kglocal/models/{name}"
        for name in (G2T_MODEL_NAME, G2T_SMOLLM2_NAME, "path-scorer-webqsp")
    }


def test_the_wheel_keeps_the_fine_tuned_model_beside_the_t5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locations, "project_models_dir", lambda: None)  # no checkout
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "no-user-models"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: SHIPPED)
    found = graph2text_model_dir(name=G2T_SMOLLM2_NAME, use_env=False)
    assert found == SHIPPED.parent / G2T_SMOLLM2_NAME
    assert resolve_model_folder(G2T_SMOLLM2_NAME) == found


def test_fasttog_g2t_runs_with_the_shipped_model_as_a_wheel_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The T5, as a wheel install without the fine-tuned model's packages runs it."""
    pytest.importorskip("transformers")
    from kgcore.graph import InMemoryGraphStore
    from kgcore.methods.fasttog import FastToG
    from kgcore.text import registry
    from kgcore.text.graph2text import default
    from kgcore.text.graph2text.guard import GuardedTextualizer
    from kgcore.types import Triple

    monkeypatch.delenv("KG_G2T_MODEL", raising=False)
    monkeypatch.setattr(locations, "project_models_dir", lambda: None)  # no checkout
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "no-user-models"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: SHIPPED)
    monkeypatch.setattr(default, "installed", lambda package: package != "peft")
    monkeypatch.setattr(registry, "_cache", {})  # load afresh, through the lookup
    store = InMemoryGraphStore.from_triples([("Giant", "directed_by", "George Stevens")])
    engine = FastToG(store, textualizer="g2t")
    assert isinstance(engine.textualizer, GuardedTextualizer)
    assert engine.textualizer.model_name == G2T_MODEL_NAME
    text = engine.textualizer(
        ["Giant", "George Stevens"], [Triple("Giant", "directed_by", "George Stevens")]
    )
    assert "Giant" in text and "George Stevens" in text
