"""Debian's nginx in front of web processes on loopback, run with ``deploy/nginx.conf`` as shipped.

The sample's two upstream addresses and its ``listen`` line are pointed at the
given ports, and a main file around it keeps every path nginx writes inside
``folder``. Used by the load benchmark (``--nginx``) and tests/scale/test_nginx.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import webapp

NGINX = Path("/usr/sbin/nginx")
#: The sample, and the two upstream addresses it names.
SAMPLE = Path(webapp.__file__).resolve().parents[1] / "deploy" / "nginx.conf"
SAMPLE_BACKENDS = ("127.0.0.1:8001", "127.0.0.1:8002")


def nginx_config(folder: Path, port: int, backends: list[str]) -> Path:
    """nginx's main file around the sample, listening on ``port``, proxying to ``backends``
    (URLs; the sample's two addresses become the first two, any more are added)."""
    sample = SAMPLE.read_text()
    addresses = [url.removeprefix("http://") for url in backends]
    for placeholder, address in zip(SAMPLE_BACKENDS, addresses, strict=False):
        sample = sample.replace(f"server {placeholder};", f"server {address};")
    if len(addresses) == 1:
        sample = sample.replace(f"    server {SAMPLE_BACKENDS[1]};\n", "")
    more = "".join(f"    server {address};\n" for address in addresses[2:])
    sticky = "    hash $lookahead_sticky consistent;\n"
    sample = sample.replace(sticky, sticky + more)
    sample = sample.replace("listen 80;", f"listen 127.0.0.1:{port};")
    folder.mkdir(parents=True, exist_ok=True)
    temps = ""
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / name).mkdir(exist_ok=True)
        temps += f"{name}_temp_path {folder / name};\n"
    config = folder / "nginx.conf"
    config.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # its folders are ours, not nobody's
        + f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        + f"error_log {folder}/error.log;\nevents {{}}\nhttp {{\n"
        + "log_format upstream '$request $status $upstream_addr [$lookahead_sticky]';\n"
        + f"access_log {folder}/access.log upstream;\n{temps}{sample}\n}}\n"
    )
    return config


def start_nginx(
    folder: Path, port: int, backends: list[str]
) -> tuple[subprocess.Popen[bytes], Path]:
    """nginx on ``port`` in front of ``backends``, and its error log (it serves once it answers)."""
    if not NGINX.exists():
        raise FileNotFoundError(f"no {NGINX}: apt-get install nginx")
    config = nginx_config(folder, port, backends)
    process = subprocess.Popen(
        [str(NGINX), "-p", str(folder), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return process, folder / "error.log"
