"""The web process keeps to one CPU; its search processes run on every CPU it had
(``webapp/search_pool/affinity.py``, the server's ``WEB_CPU``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.web.helpers import WAIT
from webapp.__main__ import parse_args
from webapp.search_pool.affinity import AUTO, cpu_for


def allowed_lists(pid: int) -> set[str]:
    """The CPUs each thread of ``pid`` may run on, as /proc lists them ("0", "0-1")."""
    lists = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as status:
            for line in status:
                if line.startswith("Cpus_allowed_list:"):
                    lists.add(line.split(":", 1)[1].strip())
    return lists


def test_which_cpu_the_setting_names() -> None:
    assert cpu_for(AUTO, {0, 1}, pid=10) == 0 and cpu_for(AUTO, {0, 1}, pid=11) == 1
    assert cpu_for(AUTO, {2, 5, 7}, pid=4) == 5  # processes side by side spread
    assert cpu_for(AUTO, {3}, pid=4) is None  # one CPU: nothing to keep to
    assert cpu_for(None, {0, 1}, pid=4) is None
    assert cpu_for(1, {0, 1}, pid=4) == 1
    for wrong in (2, -1, "1", True, 1.0, "off"):
        with pytest.raises(ValueError, match="WEB_CPU must be"):
            cpu_for(wrong, {0, 1}, pid=4)


def test_the_command_line_refuses_a_cpu_it_may_not_use(capsys: pytest.CaptureFixture[str]) -> None:
    beyond = max(os.sched_getaffinity(0)) + 1
    with pytest.raises(SystemExit):
        parse_args(["--set", f"WEB_CPU={beyond}"])
    assert "WEB_CPU must be" in capsys.readouterr().err
    assert parse_args(["--set", "WEB_CPU=null"]).settings == {"WEB_CPU": None}


#: In a fresh interpreter (the test's own process keeps its CPUs): keep to one CPU, then
#: start a search pool's thread and process, as the web worker does; print where each runs.
KEPT = textwrap.dedent(
    """
    import json, os, sys
    from tests.web.test_affinity import allowed_lists
    from webapp.bench.processes import server_processes
    from webapp.search_pool import SearchPool, affinity

    cpu = affinity.keep_to_one_cpu(affinity.AUTO)
    pool = SearchPool(1, warm_up=False)
    pool.start()
    assert pool.wait_ready(float(sys.argv[1]))
    _, (worker,) = server_processes(os.getpid())  # this one as the web process
    print(json.dumps({"cpu": cpu, "here": sorted(allowed_lists(os.getpid())),
                      "worker": sorted(allowed_lists(worker))}))
    pool.close()
    """
)


def test_the_web_process_keeps_to_one_cpu_and_its_searches_use_them_all() -> None:
    before = os.sched_getaffinity(0)
    shown = ",".join(map(str, sorted(before)))  # what /proc shows as a list, if not a range
    done = subprocess.run(
        [sys.executable, "-c", KEPT, str(WAIT)],
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
        cwd=os.getcwd(),
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    if len(before) > 1:
        assert seen["cpu"] in before
        assert seen["here"] == [str(seen["cpu"])]  # every thread, the pool's too
    else:  # one CPU: nothing to keep to, nothing changed
        assert seen["cpu"] is None and seen["here"] == [shown]
    assert len(seen["worker"]) == 1
    (worker,) = seen["worker"]
    assert worker in (shown, f"{min(before)}-{max(before)}")  # every CPU the process had
