"""Graph2Text with a causal LM: LoRA training (resumable), loading an adapter folder, publishing.

The base is a one-layer Llama with random weights and the shipped T5 model's tokenizer, saved
to a folder: the code paths are those of SmolLM2 + LoRA, at test size (plumbing, not quality).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.causal import causal_prompt
from kgcore.text.graph2text.settings import G2TSettings
from kgcore.types import Triple
from kglocal.locations import graph2text_model_dir
from kgmodels.graph2text.causal_training import (
    CausalTrainConfig,
    encode_pairs,
    pairs,
    train_causal,
)
from kgmodels.graph2text.publish import publish

TRIPLES = [Triple("Alan_Bean", "occupation", "Test_pilot")]


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = AutoTokenizer.from_pretrained(graph2text_model_dir(use_env=False))
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=512,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _config(base: Path, train: Path, out: Path, steps: int) -> CausalTrainConfig:
    return CausalTrainConfig(
        base=str(base),
        train_files=[str(train)],
        output_dir=str(out / "model"),
        checkpoint_dir=str(out / "checkpoints"),
        batch_size=4,
        max_steps=steps,
        checkpoint_every=2,
        warmup_steps=1,
        lora_r=2,
        lora_alpha=4,
        threads=1,
        max_source_tokens=96,
        max_target_tokens=32,
    )


@pytest.fixture(scope="module")
def tiny_adapter(
    tiny_base: Path, small_webnlg: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("g2t-causal")
    train_causal(_config(tiny_base, small_webnlg[0], out, steps=3))
    return out


def test_training_writes_an_adapter_folder_that_names_its_base(
    tiny_adapter: Path, tiny_base: Path
) -> None:
    model = tiny_adapter / "model"
    assert (model / "adapter_model.safetensors").is_file()
    assert not (model / "model.safetensors").exists()  # the base is not copied
    settings = G2TSettings.load(model)
    assert (settings.architecture, settings.base_model) == ("causal", str(tiny_base))
    summary = json.loads((model / "training_summary.json").read_text())
    assert summary["steps"] == 3 and summary["examples"] > 48  # every reference text


def test_a_second_run_continues_from_the_checkpoint(
    tiny_base: Path, small_webnlg: tuple[Path, Path], tiny_adapter: Path, tmp_path: Path
) -> None:
    work = tmp_path / "run"
    shutil.copytree(tiny_adapter / "checkpoints", work / "checkpoints")
    first = json.loads((tiny_adapter / "model" / "training_summary.json").read_text())
    train_causal(_config(tiny_base, small_webnlg[0], work, steps=5))
    second = json.loads((work / "model" / "training_summary.json").read_text())
    assert second["steps"] == 5
    # the history of the first run is kept and the second starts where it stopped
    assert second["history"][: len(first["history"])] == first["history"]
    assert [h["step"] for h in second["history"]] == [3, 5]


def test_graph2text_loads_the_adapter_and_generates_deterministically(
    tiny_adapter: Path,
) -> None:
    g2t = Graph2Text.from_pretrained(tiny_adapter / "model", max_new_tokens=6)
    assert g2t.settings.architecture == "causal"
    assert g2t.tokenizer.padding_side == "left"
    communities = [TRIPLES, [*TRIPLES, Triple("Alan_Bean", "birthPlace", "Wheeler,_Texas")]]
    texts = g2t.generate(communities)
    assert len(texts) == 2 and all(isinstance(t, str) and "\n" not in t for t in texts)
    assert g2t.generate(communities) == texts
    assert g2t(["Alan Bean"], TRIPLES) == texts[0]


def test_the_folder_s_writing_defaults_are_used_and_options_win(
    tiny_adapter: Path, tmp_path: Path
) -> None:
    folder = shutil.copytree(tiny_adapter / "model", tmp_path / "model")
    config = json.loads((folder / "g2t_config.json").read_text())
    config |= {"num_beams": 2, "candidates": 2, "triples_per_sentence": 1}
    (folder / "g2t_config.json").write_text(json.dumps(config))
    g2t = Graph2Text.from_pretrained(folder, max_new_tokens=6)
    assert (g2t.num_beams, g2t.candidates, g2t.triples_per_sentence) == (2, 2, 1)
    community = [*TRIPLES, Triple("Alan_Bean", "birthPlace", "Wheeler,_Texas")]
    texts = g2t.generate([community, TRIPLES])
    assert len(texts) == 2 and all(isinstance(t, str) and "\n" not in t for t in texts)
    assert g2t.generate([community, TRIPLES]) == texts
    plain = Graph2Text.from_pretrained(folder, num_beams=1, candidates=1)
    assert (plain.num_beams, plain.candidates) == (1, 1)
    # the server too: the folder's defaults, or the beams asked for with one candidate
    from kgmodels.graph2text.serve import Graph2TextAPI

    served = Graph2TextAPI(str(folder))
    served.setup("cpu")
    assert (served.g2t.num_beams, served.g2t.candidates, served.g2t.triples_per_sentence) == (
        2,
        2,
        1,
    )
    narrow = Graph2TextAPI(str(folder), num_beams=1)
    narrow.setup("cpu")
    assert (narrow.g2t.num_beams, narrow.g2t.candidates) == (1, 1)
    with pytest.raises(ConfigurationError, match="--beams"):
        Graph2TextAPI(str(folder), num_beams=0)


def test_prompt_and_labels_put_the_loss_on_the_text_only(tiny_base: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_base)
    [example] = encode_pairs(tokenizer, [("<H> a <R> b <T> c", "A b c.")], 64, 16)
    prompt = tokenizer(causal_prompt("<H> a <R> b <T> c"), add_special_tokens=False)
    n = len(prompt["input_ids"])
    assert example.labels[:n] == [-100] * n
    assert example.labels[n:] == example.input_ids[n:]
    assert example.input_ids[-1] == tokenizer.eos_token_id


def test_pairs_take_every_reference(small_webnlg: tuple[Path, Path]) -> None:
    from kgmodels.graph2text.data import read_webnlg

    entries = read_webnlg(small_webnlg[0])
    assert len(pairs([str(small_webnlg[0])])) == sum(len(e.texts) for e in entries)


@pytest.mark.parametrize(
    "bad",
    [{"epochs": 0}, {"learning_rate": 2.0}, {"lora_dropout": 1.0}, {"train_files": []}],
)
def test_train_config_is_checked_when_made(bad: dict[str, object]) -> None:
    values: dict[str, object] = {"train_files": ["x.jsonl"], **bad}
    with pytest.raises(ConfigurationError):
        CausalTrainConfig(**values)  # type: ignore[arg-type]


def test_an_adapter_without_a_base_is_refused(tiny_adapter: Path, tmp_path: Path) -> None:
    folder = tmp_path / "no-base"
    shutil.copytree(tiny_adapter / "model", folder)
    G2TSettings(architecture="causal").save(folder)
    with pytest.raises(ConfigurationError, match="base_model"):
        Graph2Text.from_pretrained(folder)


def test_publish_dry_run_stages_the_adapter_with_its_card_and_reloads(
    tiny_adapter: Path, tmp_path: Path
) -> None:
    from huggingface_hub import ModelCard

    metrics = {"bleu_all": 50.6, "guard_pass_metaqa": 0.4}
    staged = publish(
        tiny_adapter / "model", "me/g2t-causal", out=tmp_path / "s", dry_run=True, metrics=metrics
    )
    card = ModelCard.load(staged / "README.md")
    assert card.data.library_name == "peft" and card.data.pipeline_tag == "text-generation"
    assert "## Training" in card.text and "LoRA r=2" in card.text
    assert "kgqa g2t publish" in card.text and "guard_pass_metaqa" in card.text
    assert (staged / "adapter_model.safetensors").is_file()
    direct = Graph2Text.from_pretrained(tiny_adapter / "model", max_new_tokens=6)
    again = Graph2Text.from_pretrained(staged, max_new_tokens=6)
    assert again.generate([TRIPLES]) == direct.generate([TRIPLES])


def test_fasttog_textualizer_g2t_takes_an_adapter_folder(tiny_adapter: Path, movie_store) -> None:
    from kgcore.llm import ScriptedLLM
    from kgcore.text import resolve_textualizer
    from kgcore.text.graph2text.guard import GuardedTextualizer
    from kgeval.registry import make_method

    folder = tiny_adapter / "model"
    textualizer = resolve_textualizer(f"g2t:{folder}")
    assert isinstance(textualizer, GuardedTextualizer)
    assert isinstance(textualizer(["Alan Bean"], TRIPLES), str) and textualizer.calls == 1
    engine = make_method(
        "fasttog",
        movie_store,
        textualizer=f"g2t:{folder}",
        width=1,
        grounded_answers=False,
        first_choice="llm",
    )
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{All About Eve}"])
    )
    result = engine.run("which films share the director of [Cleopatra]", llm)
    assert result.extra["textualizer_fallbacks"] >= 1  # a random tiny model: its texts fail


@pytest.mark.slow
def test_the_server_serves_an_adapter_folder(tiny_adapter: Path) -> None:
    import httpx

    from kgmodels.graph2text.serve_process import serving

    with serving(tiny_adapter / "model", token="t0k") as url:
        body = {"triples": [["Alan Bean", "occupation", "Test pilot"]]}
        reply = httpx.post(
            f"{url}/predict", json=body, headers={"Authorization": "Bearer t0k"}, timeout=120
        )
    assert reply.status_code == 200
    assert isinstance(reply.json()["text"], str) and reply.json()["guard_ok"] is False
