"""The wheel a user installs: built from this checkout, installed into a fresh virtual environment, run from a
folder outside the checkout so that nothing but the installed package can be imported."""

import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(out),
                        str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    (whl,) = out.glob("paperlib-*.whl")
    r = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, out.iterdir())],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return whl


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv with the wheel installed (``--no-deps``); its dependencies are borrowed read-only from this
    environment's site-packages through a ``.pth`` line (appended after the venv's own site-packages, and it
    does not run this environment's editable-install hook), so no download is needed."""
    d = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(d)], check=True)
    py = d / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "borrowed-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    r = subprocess.run([py, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return d


def run(venv, *args, cwd, env_extra=None, stdin=None):
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(cwd), "PAPERLIB_DEVICE": "cpu",
           **(env_extra or {})}
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=env, input=stdin)


@pytest.mark.slow
def test_wheel_ships_registry_and_profiles(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for f in ("paperlib/data/registry.yaml", "paperlib/config/quick.yaml", "paperlib/config/paper.yaml",
              "paperlib/config/smoke.yaml", "paperlib/pipeline/config.schema.yaml"):
        assert f in names, f
    assert any(n.endswith("licenses/LICENSE") for n in names)
    meta = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: MIT" in text
    requires = [ln for ln in text.splitlines() if ln.startswith("Requires-Dist:")]
    core = [ln for ln in requires if "extra ==" not in ln]
    assert any("torch>=2.3" in ln for ln in core) and not any("==" in ln.split(";")[0] for ln in core)
    assert not any(p in ln for ln in core for p in ("snakemake", "papermill", "ipykernel", "seaborn"))


@pytest.mark.slow
def test_installed_wheel_runs_outside_the_checkout(venv, tmp_path):
    import paperlib

    paperlib_bin = venv / "bin" / "paperlib"
    r = run(venv, venv / "bin" / "python", "-c", "import paperlib; print(paperlib.__file__)", cwd=tmp_path)
    assert r.returncode == 0 and str(venv) in r.stdout and str(ROOT) not in r.stdout, r.stdout + r.stderr

    r = run(venv, paperlib_bin, "--version", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == f"paperlib {paperlib.__version__}", r.stdout + r.stderr
    r = run(venv, paperlib_bin, "simulate", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("usage: paperlib simulate")

    r = run(venv, paperlib_bin, "datasets", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "synth_easy" in r.stdout and "sysrs_gsm" in r.stdout and "missing" in r.stdout
    r = run(venv, venv / "bin" / "python", "-c",
            "from paperlib.pipeline.config import load_config; c = load_config('quick'); print(sorted(c))", cwd=tmp_path)
    assert r.returncode == 0 and "zhou" in r.stdout, r.stderr

    rng = np.random.default_rng(0)
    scores = (rng.random((6, 200)) < np.linspace(0.3, 0.8, 6)[:, None]).astype(np.float32)
    np.savez(tmp_path / "m.npz", scores=scores)
    r = run(venv, paperlib_bin, "simulate", "--method", "ucbe", "--scores", tmp_path / "m.npz", "--budget-frac",
            "0.3", "--reps", "4", "--seed", "1", "--json", tmp_path / "out.json", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["shape"] == [6, 200] and len(out["best"]) == 4 and out["true_best"] == 5 and out["data_kind"] == "user"

    (tmp_path / "models.txt").write_text("\n".join(f"m{i}" for i in range(6)) + "\n")
    (tmp_path / "examples.txt").write_text("\n".join(json.dumps({"id": j}) for j in range(200)) + "\n")
    np.save(tmp_path / "table.npy", scores)
    (tmp_path / "scorer.py").write_text(textwrap.dedent(f"""
        import json, sys
        import numpy as np
        pair = json.load(sys.stdin)
        print(float(np.load({str(tmp_path / 'table.npy')!r})[int(pair["model"][1:]), pair["example"]["id"]]))
    """))
    r = run(venv, paperlib_bin, "search", "--models", "models.txt", "--examples", "examples.txt", "--scorer",
            f"{venv / 'bin' / 'python'} scorer.py", "--json", "search.json", "--delta", "0.1", "--seed", "2",
            "--workers", "2", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "search.json").read_text())
    assert res["best"] == "m5" and 0 < res["calls"] <= 6 * 200


@pytest.mark.slow
def test_installed_wheel_fetch_writes_to_the_user_cache(venv, tmp_path):
    """Installed (no checkout), fetched data go to ~/.cache/paperlib; the missing-data error names the command."""
    r = run(venv, venv / "bin" / "python", "-c", "from paperlib import paths; print(paths.cache_dir())", cwd=tmp_path)
    assert r.stdout.strip() == str(tmp_path / ".cache" / "paperlib"), r.stdout + r.stderr
    r = run(venv, venv / "bin" / "python", "-c", "from paperlib import data; data.load('sysrs_gsm')", cwd=tmp_path)
    assert r.returncode != 0 and "paperlib data fetch sysrs_gsm" in r.stderr
    shutil.rmtree(tmp_path / ".cache", ignore_errors=True)
