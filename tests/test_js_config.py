"""The node unit tests' stand-in page config (tests/js/config.json) is the server's."""

from __future__ import annotations

import json
from pathlib import Path

from webapp.protocol import client_config

CONFIG = Path(__file__).resolve().parent / "js" / "config.json"


def test_the_js_tests_score_convention_and_limits_are_the_servers() -> None:
    served = json.loads(json.dumps(client_config()))  # as the page reads it
    wanted = {key: served[key] for key in ("scores", "limits")}
    assert json.loads(CONFIG.read_text()) == wanted
