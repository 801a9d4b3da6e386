"""Downloading a model from the hub, for real, against a hub on 127.0.0.1 (tests/fakehub.py's ``FakeHub``,
in the URL layout huggingface_hub's client uses). ``HF_ENDPOINT`` points at it and the Hugging Face
cache is a temporary folder; no test here reaches the network (the ``loopback_only`` fixture).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from selfattn.errors import InputError
from selfattn.text import models, prefetch, readout
from tests.fakehub import PICKLE_REPO, REPO

pytestmark = pytest.mark.usefixtures("loopback_only")  # no test here reaches the network

ROOT = Path(__file__).resolve().parents[1]
WANTED = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]


def repo_folder(cache: Path, repo: str) -> Path:
    return cache / ("models--" + repo.replace("/", "--"))


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.rglob("*.incomplete"))


def test_plan_says_the_size_first_and_writes_nothing(hub, cache, tiny_files):
    plan = prefetch.plan_download(REPO)
    assert plan.endpoint == hub.url and not plan.cached and plan.commit == hub.repos[REPO][0]
    assert [path for path, _ in plan.files] == WANTED  # no pickle, no README
    assert plan.total_bytes == sum(len(tiny_files[name]) for name in WANTED)
    assert hub.requests == [("GET", f"/api/models/{REPO}/revision/main")]
    assert not cache.exists()
    hub.sizes_in_info = False  # a mirror that lists no sizes: they come from the repo's file tree
    assert prefetch.plan_download(REPO) == plan
    assert hub.requests[-1] == ("GET", f"/api/models/{REPO}/tree/{plan.commit}")


def test_download_reports_progress_then_works_offline(hub, cache, tiny_files):
    from huggingface_hub import constants

    offline_before = constants.HF_HUB_OFFLINE
    calls = []
    folder = prefetch.download_model(REPO, progress=lambda done, total: calls.append((done, total)))
    total = sum(len(tiny_files[name]) for name in WANTED)
    assert calls[0] == (0, total) and calls[-1] == (total, total) and len(calls) >= 3
    dones = [done for done, _ in calls]
    assert dones == sorted(set(dones)) and all(t == total for _, t in calls)  # rising, never repeated
    assert sorted(hub.fetched()) == WANTED  # the pickle file and the README never came
    assert folder.parent == repo_folder(cache, REPO) / "snapshots" and folder.name == hub.repos[REPO][0]
    assert sorted(p.name for p in folder.iterdir()) == WANTED and leftovers(cache) == []
    assert constants.HF_HUB_OFFLINE == offline_before  # the offline switch is back

    hub.stop()  # from now on, no hub at all
    bundle = models.load_model(REPO)
    assert bundle.origin == "hub" and Path(bundle.folder) == folder and bundle.num_layers == 2
    run = models.run_model(bundle, "我爱自然语言处理")
    assert run.tokens == ["[CLS]", *"我爱自然语言处理", "[SEP]"]
    assert readout.word_labels(run, readout.word_groups(run)) == ["[CLS]", "我", "爱", "自然语言", "处理", "[SEP]"]
    assert prefetch.download_model(REPO) == folder  # already there: no request, nothing downloaded
    assert prefetch.load_or_download(REPO) is bundle


def test_load_model_downloads_only_when_allowed(hub, cache):
    with pytest.raises(InputError) as err:
        models.load_model(REPO)
    assert err.value.code == "offline" and hub.requests == []
    calls = []
    bundle = prefetch.load_or_download(REPO, progress=lambda done, total: calls.append(done))
    assert bundle.origin == "hub" and calls[0] == 0 and calls[-1] == bundle_bytes(bundle)


def bundle_bytes(bundle) -> int:
    return sum(p.stat().st_size for p in Path(bundle.folder).iterdir())


def test_pickle_only_repo_is_refused_before_anything_is_fetched(hub, cache):
    with pytest.raises(InputError) as err:
        prefetch.download_model(PICKLE_REPO, progress=lambda *a: pytest.fail("no progress for a refused repo"))
    assert err.value.code == "hub_no_safetensors" and err.value.params == {"name": PICKLE_REPO}
    assert "pytorch_model.bin" in str(err.value) and "never downloaded" in str(err.value)
    assert hub.fetched() == [] and not cache.exists()


def test_unknown_repo_and_unreachable_hub(hub, cache, monkeypatch):
    with pytest.raises(InputError) as err:
        prefetch.download_model("selfattn-tests/no-such-model")
    assert err.value.code == "hub_not_found" and err.value.params["endpoint"] == hub.url
    hub.stop()
    with pytest.raises(InputError) as err:
        prefetch.plan_download(REPO)
    assert err.value.code == "hub_unreachable" and err.value.params == {"name": REPO}
    assert hub.url in str(err.value)  # the host's command line says where it tried; the page does not (below)
    monkeypatch.setenv("HF_ENDPOINT", "http://no-such-host.invalid")  # a name that does not resolve (no lookup
    with pytest.raises(InputError) as err:                              # leaves the machine: .invalid is reserved)
        prefetch.plan_download(REPO)
    assert err.value.code == "hub_unreachable"


def test_a_visitor_reads_plain_words_never_an_endpoint_or_errno(hub, cache):
    """What the page shows for each download error, in both languages: the model and what happened, no URL, no errno."""
    from selfattn.i18n import LANGS, t

    hub.stop()
    failures = []
    for call in (lambda: prefetch.plan_download(REPO), lambda: prefetch.download_model("selfattn-tests/none")):
        with pytest.raises(InputError) as err:
            call()
        failures.append(err.value)
    failures += [prefetch._as_input_error(OSError(-2, "Name or service not known"), REPO, hub.url),
                 InputError("hub_not_found", "", name=REPO, endpoint=hub.url),
                 InputError("download_failed", "", name=REPO, endpoint=hub.url, reason="[Errno 104] reset")]
    for exc in failures:
        for lang in LANGS:
            text = t(f"err.{exc.code}", lang, **exc.params)
            assert "http" not in text and "127.0.0.1" not in text and "Errno" not in text, text
            assert "[" not in text and not any(ch.isdigit() for ch in text), text
    assert t("err.hub_unreachable", "en") == ("The model could not be downloaded: this server cannot reach the "
                                              "model hub.")


def test_old_ids_are_one_model_stored_once(hub, cache, tiny_files):
    """bert-base-chinese moved to google-bert/bert-base-chinese on the hub: either id downloads and loads one copy."""
    hub.add("google-bert/bert-base-chinese", tiny_files)
    folder = prefetch.download_model("bert-base-chinese")
    assert prefetch.plan_download("Bert-Base-Chinese").cached  # any case, no request
    assert [p.name for p in cache.iterdir() if p.name.startswith("models--")] == \
        ["models--google-bert--bert-base-chinese"]
    assert hub.requests and all("/google-bert/bert-base-chinese/" in path for _, path in hub.requests)
    requests = len(hub.requests)
    for spec in ("bert-base-chinese", "google-bert/bert-base-chinese"):
        bundle = models.load_model(spec)
        assert bundle.name == "google-bert/bert-base-chinese" and Path(bundle.folder) == folder
    assert prefetch.download_model("google-bert/bert-base-chinese") == folder and len(hub.requests) == requests


def test_a_copy_cached_under_the_old_id_still_loads(hub, cache, tiny_files):
    """A server whose host prefetched bert-base-chinese before the ids were merged keeps using that copy."""
    hub.add("bert-base-chinese", tiny_files)
    from huggingface_hub import snapshot_download

    with prefetch.hub_online():  # a page opened earlier in this process set HF_HUB_OFFLINE (models.stay_offline)
        old = snapshot_download("bert-base-chinese", allow_patterns=list(models.DOWNLOAD_PATTERNS), endpoint=hub.url)
    hub.stop()
    bundle = models.load_model("google-bert/bert-base-chinese")
    assert bundle.name == "google-bert/bert-base-chinese" and Path(bundle.folder) == Path(old).resolve()


def test_visitors_of_a_hosted_demo_download_only_when_the_host_opts_in(hub, cache, monkeypatch):
    monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV, raising=False)
    assert prefetch.visitors_may_download()  # on one's own machine, a click downloads
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    assert not prefetch.visitors_may_download()
    with pytest.raises(InputError) as err:
        prefetch.check_visitor_download("google-bert/bert-base-chinese")
    assert err.value.code == "only_installed" and err.value.params == {"name": "google-bert/bert-base-chinese"}
    monkeypatch.setenv(prefetch.ALLOW_DOWNLOADS_ENV, "1")
    assert prefetch.visitors_may_download()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the host's own offline switch wins
    monkeypatch.delenv(models.OFFLINE_MARK, raising=False)
    assert not prefetch.visitors_may_download()
    monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV)  # the Dockerfile: hosted, and offline after its prefetch
    with pytest.raises(InputError) as err:
        prefetch.check_visitor_download("google-bert/bert-base-chinese")
    assert err.value.code == "only_installed"  # what the visitor needs to know: this demo has what it has
    assert hub.requests == []


def test_hosted_mode_refuses_other_ids_without_contacting_the_server(hub, cache, monkeypatch, tiny_files):
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    for call in (prefetch.plan_download, prefetch.download_model, prefetch.load_or_download):
        with pytest.raises(InputError) as err:
            call(REPO)
        assert err.value.code == "not_allowed_hosted"
    assert hub.requests == [] and not cache.exists()
    # the host's own call downloads an allow-listed id in hosted mode (here the tiny model, served under
    # bert-base-chinese's new id), with or without SELFATTN_ALLOW_DOWNLOADS, which is about visitors
    hub.add("google-bert/bert-base-chinese", tiny_files)
    assert "google-bert/bert-base-chinese" in models.HOSTED_ALLOWLIST
    bundle = prefetch.load_or_download("bert-base-chinese")
    assert bundle.origin == "hub" and bundle.name == "google-bert/bert-base-chinese"


def test_download_lifts_our_offline_switch_only_while_it_runs(hub, cache, monkeypatch):
    """As in the app: HF_HUB_OFFLINE=1 from stay_offline was read when huggingface_hub was imported."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(models.OFFLINE_MARK, "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    folder = prefetch.download_model(REPO)
    assert constants.HF_HUB_OFFLINE is True and sorted(hub.fetched()) == WANTED
    assert models.load_model(REPO).folder == str(folder)


def test_host_set_offline_switches_downloads_off(hub, cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv(models.OFFLINE_MARK, raising=False)  # the host's own setting, not stay_offline's
    with pytest.raises(InputError) as err:
        prefetch.load_or_download(REPO)
    assert err.value.code == "downloads_off" and hub.requests == []
    monkeypatch.setenv(models.OFFLINE_MARK, "1")  # set by stay_offline (here or in a parent process): ours to lift
    assert prefetch.download_model(REPO).is_dir()


class NoWaitTime:
    """The time module, with sleep() not waiting: huggingface_hub waits 1 s before each of its 5 retries."""

    def __getattr__(self, name):
        import time

        return getattr(time, name)

    @staticmethod
    def sleep(seconds):
        pass


def test_connection_dropped_mid_download_keeps_nothing_partial(hub, cache, tiny_files, monkeypatch):
    from huggingface_hub import file_download

    monkeypatch.setattr(file_download, "time", NoWaitTime(), raising=False)
    hub.drop = {"model.safetensors"}
    calls = []
    with pytest.raises(InputError) as err:
        prefetch.download_model(REPO, progress=lambda done, total: calls.append((done, total)))
    assert err.value.code == "download_failed" and "try again" in str(err.value)
    assert hub.fetched().count("model.safetensors") == 6  # cut off half-way, then 5 retries dropped unanswered
    assert calls and calls[-1][0] < calls[-1][1]  # progress stopped short of the total
    assert leftovers(cache) == []  # the half-written file was removed
    snapshot = repo_folder(cache, REPO) / "snapshots" / hub.repos[REPO][0]
    assert (snapshot / "config.json").is_file() and not (snapshot / "model.safetensors").exists()
    weights_blob = repo_folder(cache, REPO) / "blobs" / hashlib.sha256(tiny_files["model.safetensors"]).hexdigest()
    assert not weights_blob.exists()
    # the half-downloaded model is never used: loading says so, offline
    for allow in (False, True):
        hub.requests.clear()
        with pytest.raises(InputError) as err:
            (prefetch.load_or_download if allow else models.load_model)(REPO)  # with allow: the server still drops
        assert err.value.code == ("download_incomplete" if not allow else "download_failed")
    # the server is back: downloading again completes the copy, fetching only what is missing
    hub.drop = set()
    hub.requests.clear()
    bundle = prefetch.load_or_download(REPO)
    assert hub.fetched() == ["model.safetensors"] and bundle.num_heads == 2


def test_prefetch_command(hub, cache, tmp_path):
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(cache),
           "PYTHONPATH": str(ROOT)}
    env.pop(models.HOSTED_ENV, None)
    done = subprocess.run([sys.executable, "-m", "selfattn.text.prefetch", REPO], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(rf"{REPO}: \d+\.\d kB in 4 files from {re.escape(hub.url)}", lines[0]), lines
    assert "  0%" in lines[1] and "100%" in lines[-2] and lines[-1].startswith(f"{REPO}: ready in {cache}")
    assert done.stderr == ""
    again = subprocess.run([sys.executable, "-m", "selfattn.text.prefetch", REPO, PICKLE_REPO], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and again.stdout.startswith(f"{REPO}: already in the cache")
    assert again.stderr.startswith(f"prefetch: {PICKLE_REPO} has no .safetensors weights")


def test_install_sh_prefetch_step(hub, cache, tmp_path):
    """`deploy/install.sh prefetch` runs the command for SELFATTN_PREFETCH (not a default step)."""
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(cache), "PYTHON": sys.executable,
           "SELFATTN_PREFETCH": REPO, "PYTHONPATH": str(ROOT)}
    env.pop(models.HOSTED_ENV, None)
    done = subprocess.run(["bash", str(ROOT / "deploy" / "install.sh"), "prefetch"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{REPO}: ready in" in done.stdout and "install.sh: done" in done.stdout
    assert (repo_folder(cache, REPO) / "snapshots" / hub.repos[REPO][0] / "model.safetensors").is_file()
    script = (ROOT / "deploy" / "install.sh").read_text()
    assert re.search(r"steps=\(deps cache check\)", script)  # prefetch stays off by default
