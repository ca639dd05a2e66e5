"""``webapp.json_text``: orjson's speed, ``json``'s text and readings."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math

import pytest
from socketio import packet

from webapp import json_text
from webapp.web.packets import SafePacket


@dataclasses.dataclass
class Point:
    x: int
    y: int


def nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


SAMPLES = [
    {"game_id": "abc", "moves": "4433", "move_scores": {"1": {"score": -3, "exact": True}}},
    {1: "int keys, as json writes them", "nested": [[1.5, None, True, False], {"e": 1e-7}]},
    "café ♟",
    2**70 + 1,  # past 64 bits (and no float): json writes and reads it
    "\ud800",  # a lone surrogate (JSON may carry one): json escapes it
    nested(300),  # past orjson's depth: json writes it
]


@pytest.mark.parametrize("value", SAMPLES)
def test_what_is_written_reads_back_as_json_wrote_it(value: object) -> None:
    written = json_text.dumps(value)
    assert json.loads(written) == json.loads(json.dumps(value))
    assert json_text.loads(written) == json.loads(json.dumps(value))


def test_writing_is_compact_and_leaves_non_ascii_as_it_is() -> None:
    assert json_text.dumps({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    assert json_text.dumps({"a": 1}, separators=(",", ":")) == '{"a":1}'


def test_other_options_are_json_s_and_what_json_refuses_is_refused() -> None:
    assert json_text.dumps({"b": 1, "a": 2}, sort_keys=True) == '{"a":2,"b":1}'
    for value in (object(), Point(1, 2), datetime.datetime(2026, 1, 1)):
        with pytest.raises(TypeError):
            json_text.dumps({"a": value})


def test_no_json_numbers_are_written_null_as_browsers_do() -> None:
    assert json_text.dumps([math.nan, math.inf]) == "[null,null]"


def test_a_number_past_64_bits_reads_back_exactly() -> None:
    assert json_text.loads('{"a":[1180591620717411303425]}') == {"a": [2**70 + 1]}
    assert json_text.loads(json_text.dumps(-(2**64) - 3)) == -(2**64) - 3


def test_text_orjson_refuses_is_read_by_json() -> None:
    assert json_text.loads('"\\ud800"') == "\ud800"
    assert math.isnan(json_text.loads("NaN"))
    with pytest.raises(ValueError):
        json_text.loads("{not json")


def test_a_clients_packet_is_read_exactly_and_an_event_sent_by_orjson() -> None:
    """A client's numbers past 64 bits stay integers (orjson would read a float); what the
    server sends is orjson's text (non-ASCII left as is, where json escapes it)."""
    received = SafePacket(encoded_packet='2["move",{"ply":123456789012345678901234567890}]')
    assert received.data[1]["ply"] == 123456789012345678901234567890
    sent = SafePacket(packet.EVENT, data=["state", {"note": "é"}]).encode()
    assert sent == '2["state",{"note":"é"}]'
