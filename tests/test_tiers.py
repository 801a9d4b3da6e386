"""The fast tier starts no server and no browser: tests/conftest.py's guard fails a test that tries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLANTED = '''
import subprocess, sys

import pytest

# A command line that names `streamlit run` (an argument python -c ignores): the guard reads command lines.
COMMAND = [sys.executable, "-c", "pass", "streamlit run app.py"]


def test_planted_fast():
    subprocess.run(COMMAND, timeout=60, check=True)


@pytest.mark.system
def test_planted_system():
    subprocess.run(COMMAND, timeout=60, check=True)
'''


def test_a_fast_test_that_starts_a_server_fails_naming_the_command_a_system_test_may(tmp_path):
    (tmp_path / "test_planted.py").write_text(PLANTED)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), str(tmp_path / "test_planted.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert "FAILED" in out and "test_planted_fast" in out.split("FAILED", 1)[1], out[-3000:]
    assert "a fast-tier test started" in out and "streamlit run app.py" in out, out[-3000:]
    assert "PASSED" in out and "test_planted_system" in out.split("PASSED", 1)[1], out[-3000:]


def test_no_test_file_imports_another_and_benchmarks_import_no_test():
    """Shared fixtures live in tests/conftest.py, shared helpers in helper modules (tests/browser.py,
    tests/fakehub.py, support/): a test file imports no other test file, and benchmarks/ imports
    nothing from tests/ (what both need is in support/)."""
    import re

    crossing = [f"{path.relative_to(ROOT)}: {line.strip()}"
                for path in [*ROOT.glob("tests/test_*.py"), *ROOT.glob("benchmarks/*.py"), *ROOT.glob("support/*.py")]
                for line in path.read_text(encoding="utf-8").splitlines()
                if re.match(r"\s*(from tests\.test_\w+ import|import tests\.test_)", line)
                or (not path.match("tests/*") and re.match(r"\s*(from tests(\.\w+)? import|import tests\b)", line))]
    assert not crossing, crossing
