"""The built package serves every page: templates/ and static/ travel inside the wheel.

The wheel is built from this checkout and installed (``--no-deps``) into a
fresh virtual environment that borrows the test environment's dependencies
(a ``.pth`` file; the editable install of the checkout is not among them), then
``python -m webapp`` runs from an empty folder, far from the checkout.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[1]
#: Seconds to build, install and start (a loaded machine; never asserted on).
WAIT = 120.0


def test_the_package_list_names_every_package() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "webapp").rglob("__init__.py")
    }
    assert listed == found | {"webapp.templates", "webapp.static"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(*command: str | Path, cwd: Path = ROOT) -> None:
    subprocess.run([str(part) for part in command], cwd=cwd, check=True, timeout=WAIT)


@pytest.mark.slow
def test_an_installed_wheel_serves_pages_and_static_files(tmp_path: Path) -> None:
    wheels, fresh, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside it
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("webapp", "templates", "static"):
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, source)
    (wheel,) = wheels.glob("lookahead-*.whl")
    run(sys.executable, "-m", "venv", fresh)
    python = fresh / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run(python, "-m", "pip", "install", "-q", "--no-deps", wheel)

    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen(
        [
            python,
            "-m",
            "webapp",
            "--port",
            str(port),
            "--db",
            tmp_path / "games.db",
            "--workers",
            "1",
        ],
        cwd=elsewhere,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + WAIT
        home = None
        while home is None and time.monotonic() < deadline and server.poll() is None:
            try:
                home = requests.get(url + "/", timeout=5)
            except requests.RequestException:
                time.sleep(0.2)
        assert home is not None, (tmp_path / "server.log").read_text(errors="replace")[-3000:]
        assert home.status_code == 200 and "Connect Four" in home.text
        style = requests.get(url + "/static/css/base.css", timeout=5)
        assert style.status_code == 200 and style.text.strip()
        where = subprocess.run(
            [python, "-c", "import webapp; print(webapp.__file__)"],
            cwd=elsewhere,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert str(fresh) in where  # the installed copy served, not the checkout
    finally:
        server.terminate()
        server.wait(timeout=WAIT)
        log.close()
