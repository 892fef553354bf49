"""Mail on a lane of its own and workers that prove they consume (pirates_site/lanes.py):
routes by task name, the heartbeat task and file, the settings that guard them, the health
check's reading of the same file, and the supervisor restarting a child whose file goes stale.
The real worker, beat and Redis are in test_worker_liveness.py."""

from __future__ import annotations

import inspect
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from games import tasks
from pirates_site import lanes
from pirates_site.celery import app as celery_app
from pirates_site.supervise import Supervisor
from tests import realservers
from tests.notifications.smtp_sink import wait_until
from tests.realservers import ROOT
from tests.site.test_config_errors import _one_clear_line, _run

SUPERVISE = ROOT / "pirates_site" / "supervise.py"
HEALTHCHECK = ROOT / "docker" / "healthcheck.py"

# ---------------------------------------------------------------------------------------------
# Routes


def _queue_of(name: str) -> str:
    """The queue Celery publishes ``name`` to: the same router serves task.delay(),
    apply_async() and app.send_task(name)."""
    return str(celery_app.amqp.router.route({}, name)["queue"].name)


def test_every_mail_task_goes_to_the_mail_queue_and_the_rest_to_the_main_queue() -> None:
    main, mail = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_MAIL_QUEUE
    assert mail != main
    assert {name: _queue_of(name) for name in settings.MAIL_TASKS} == dict.fromkeys(settings.MAIL_TASKS, mail)
    for name in ("games.bot_move", "games.relay", "games.sweep", "games.ping", "games.daily_digest",
                 "games.turn_emails_for_leavers", "games.heartbeat"):
        assert _queue_of(name) == main, name
    # An explicit queue wins over the route: beat's heartbeat entries name theirs.
    assert celery_app.amqp.router.route({"queue": mail}, "games.heartbeat")["queue"].name == mail


def _sends_mail(function: object) -> bool:
    source = inspect.getsource(function)  # type: ignore[arg-type]
    return bool(re.search(r"_sending\(|emails\.send|send_seats_filled|send_mail|\.send_messages\(", source))


def test_the_mail_task_list_is_exactly_the_tasks_that_send_mail() -> None:
    """A new task that sends an email must be added to MAIL_TASKS (and a renamed one too),
    or it would run on the main lane behind nothing and in front of bot moves."""
    registered = {
        task.name: task.run
        for task in vars(tasks).values()
        if hasattr(task, "run") and str(getattr(task, "name", "")).startswith("games.")
    }
    assert set(settings.MAIL_TASKS) <= set(registered), "a mail route names a task that does not exist"
    senders = {name for name, run in registered.items() if _sends_mail(run)}
    assert senders == set(settings.MAIL_TASKS)


def test_beat_sends_a_heartbeat_to_each_lane() -> None:
    entries = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "games.heartbeat"]
    lanes_sent = sorted((e["args"][0], e["options"]["queue"]) for e in entries)
    main, mail = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_MAIL_QUEUE
    assert lanes_sent == sorted([(main, main), (mail, mail)])
    for entry in entries:
        assert entry["schedule"].total_seconds() == settings.WORKER_HEARTBEAT_SECONDS
        assert entry["options"]["expires"] >= settings.WORKER_HEARTBEAT_SECONDS


# ---------------------------------------------------------------------------------------------
# The heartbeat file


def test_record_replaces_the_file_atomically_and_leaves_nothing_behind(tmp_path: Path) -> None:
    path = lanes.heartbeat_file(tmp_path, "pirates-mail")
    assert path == tmp_path / "worker-heartbeat-pirates-mail"
    assert lanes.record(tmp_path, "pirates-mail", force=True)
    first = path.stat()
    assert f"pid {os.getpid()} queue pirates-mail" in path.read_text()
    os.utime(path, (first.st_mtime - 300, first.st_mtime - 300))
    assert not lanes.record(tmp_path, "pirates-mail")  # a second within the same second: skipped
    assert lanes.record(tmp_path, "pirates-mail", force=True)
    again = path.stat()
    assert again.st_mtime > first.st_mtime - 300 and again.st_ino != first.st_ino  # a new file, renamed over
    assert again.st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["worker-heartbeat-pirates-mail"]


@pytest.mark.parametrize("queue", ["", "../etc", "a/b", ".hidden", "-x", "with space", "x" * 101])
def test_a_bad_queue_name_is_refused_and_writes_nothing(tmp_path: Path, queue: str) -> None:
    with pytest.raises(ValueError, match="must be 1 to 100 letters"):
        lanes.record(tmp_path, queue, force=True)
    assert list(tmp_path.iterdir()) == []


def test_the_heartbeat_task_touches_its_lane_file(tmp_path: Path, settings: object) -> None:
    settings.VAR_DIR = tmp_path  # type: ignore[attr-defined]
    # disable_sync_subtasks: not inside a task, whatever an earlier eager test left behind in
    # Celery's task stack.
    assert tasks.heartbeat.apply(args=("some-lane",)).get(disable_sync_subtasks=False) is True
    assert (tmp_path / "worker-heartbeat-some-lane").exists()
    with pytest.raises(ValueError, match="queue must be"):
        tasks.heartbeat.apply(args=("../../x",)).get(disable_sync_subtasks=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["worker-heartbeat-some-lane"]


def test_the_lane_env_prints_each_lane_for_the_commands(tmp_path: Path) -> None:
    env = {**os.environ, "VAR_DIR": str(tmp_path / "my var"), "CELERY_QUEUE": "q1",
           "WORKER_LIVENESS_MAX_AGE": "90"}
    env.pop("CELERY_MAIL_QUEUE", None)
    printed = {}
    for lane in ("worker", "mailer"):
        result = subprocess.run([sys.executable, "-m", "pirates_site.lane_env", lane], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=60, check=True)
        # What the commands do with it: the shell's own reading of the quoted assignments.
        script = f'{result.stdout}\nprintf "%s|%s|%s" "$queue" "$heartbeat_file" "$liveness_max_age"'
        shell = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=10, check=True)
        printed[lane] = shell.stdout
    assert printed == {
        "worker": f"q1|{tmp_path / 'my var' / 'worker-heartbeat-q1'}|90",
        "mailer": f"q1-mail|{tmp_path / 'my var' / 'worker-heartbeat-q1-mail'}|90",
    }
    usage = subprocess.run([sys.executable, "-m", "pirates_site.lane_env", "beat"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "usage:" in usage.stderr and usage.stdout == ""


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"CELERY_QUEUE": "a b"}, "CELERY_QUEUE must be 1 to 100 letters"),
        ({"CELERY_MAIL_QUEUE": "mail/x"}, "CELERY_MAIL_QUEUE must be 1 to 100 letters"),
        ({"CELERY_QUEUE": "same", "CELERY_MAIL_QUEUE": "same"},
         "CELERY_MAIL_QUEUE must differ from CELERY_QUEUE"),
        ({"WORKER_HEARTBEAT_SECONDS": "0"}, "WORKER_HEARTBEAT_SECONDS must be at least 1"),
        ({"WORKER_HEARTBEAT_SECONDS": "30", "WORKER_LIVENESS_MAX_AGE": "60"},
         "WORKER_LIVENESS_MAX_AGE must be at least three times"),
        ({"WORKER_LIVENESS_MAX_AGE": "soon"}, "WORKER_LIVENESS_MAX_AGE='soon' is not a whole number"),
    ],
)
def test_bad_lane_settings_stop_the_commands_with_one_line(env: dict[str, str], words: str) -> None:
    result = _run([sys.executable, "-m", "pirates_site.lane_env", "worker"], **env)
    _one_clear_line(result, words)
    assert result.stdout == ""  # nothing for the command to eval


# ---------------------------------------------------------------------------------------------
# The health check


def _check(lane: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HEALTHCHECK), lane], env=env, capture_output=True, text=True,
                          timeout=30)


@pytest.mark.parametrize(
    "queues", [{}, {"CELERY_QUEUE": "ci-1"}, {"CELERY_QUEUE": "ci-1", "CELERY_MAIL_QUEUE": "letters"}]
)
def test_the_health_check_reads_the_file_the_worker_touches(tmp_path: Path, queues: dict[str, str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_QUEUE", "CELERY_MAIL_QUEUE")}
    env.update(queues, VAR_DIR=str(tmp_path), WORKER_LIVENESS_MAX_AGE="60")
    lane_env = subprocess.run([sys.executable, "-m", "pirates_site.lane_env", "mailer"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60, check=True).stdout
    for lane in ("worker", "mailer"):
        missing = _check(lane, env)
        assert missing.returncode == 1 and f"{lane}: no heartbeat file" in missing.stderr
    # The file settings name for the mail lane (as the mailer's worker writes it) is the one
    # the mailer's health check reads; the worker's stays missing.
    mail_file = Path(re.search(r"heartbeat_file=(\S+)", lane_env)[1].strip("'"))  # type: ignore[index]
    mail_file.parent.mkdir(parents=True, exist_ok=True)
    mail_file.touch()
    assert _check("mailer", env).returncode == 0
    assert _check("worker", env).returncode == 1
    os.utime(mail_file, (time.time() - 90, time.time() - 90))
    stale = _check("mailer", env)
    assert stale.returncode == 1 and "no heartbeat in" in stale.stderr and "more than 60s" in stale.stderr
    assert _check("lunch", env).returncode == 1


def test_compose_runs_both_lanes_with_their_heartbeat_health_checks() -> None:
    services = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())["services"]
    for lane in ("worker", "mailer"):
        assert services[lane]["command"] == [f"/app/docker/commands/{lane}"]
        assert services[lane]["healthcheck"]["test"] == ["CMD", "python", "/app/docker/healthcheck.py", lane]
        assert services[lane]["init"] is True


# ---------------------------------------------------------------------------------------------
# The supervisor's liveness check


def test_silence_counts_from_the_last_touch_or_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "beat"
    s = Supervisor("t", ["true"], liveness_file=path, liveness_max_age=60)
    start = 1_000_000.0
    assert s.silence(start, now=start + 59) is None  # never touched, within the grace (= max-age)
    assert s.silence(start, now=start + 61) == 61
    short = Supervisor("t", ["true"], liveness_file=path, liveness_max_age=5)
    assert short.silence(start, now=start + 59) is None  # the grace is a minute at least
    assert short.silence(start, now=start + 61) == 61
    os.utime(path.parent, None)
    path.touch()
    os.utime(path, (start - 500, start - 500))  # a predecessor's file counts from the start
    assert s.silence(start, now=start + 30) is None
    assert s.silence(start, now=start + 70) == 70
    os.utime(path, (start + 100, start + 100))
    assert s.silence(start, now=start + 150) is None
    assert s.silence(start, now=start + 161) == 61
    s.liveness_grace = 200  # a slow starter gets longer for its first touch only
    os.utime(path, (start - 500, start - 500))
    assert s.silence(start, now=start + 150) is None and s.silence(start, now=start + 201) == 201
    assert Supervisor("t", ["true"]).silence(start, now=start + 10_000) is None  # not watched


def _sleeper(ignore_term: bool = False, grandchild: Path | None = None) -> list[str]:
    code = ["import os, signal, subprocess, sys, time"]
    if ignore_term:
        code.append("signal.signal(signal.SIGTERM, signal.SIG_IGN)")
    if grandchild is not None:
        code.append("p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])")
        code.append(f"open({str(grandchild)!r}, 'w').write(str(p.pid))")
    code.append("time.sleep(120)")
    return [sys.executable, "-c", "\n".join(code)]


def test_a_child_that_never_touches_its_file_is_stopped_and_started_again(tmp_path: Path) -> None:
    s = Supervisor("silent", _sleeper(), min_delay=0.01, max_restarts=2, liveness_file=tmp_path / "hb",
                   liveness_max_age=0.5, liveness_grace=0.5, check_every=0.05, stop_timeout=10)
    code = s.run()
    assert code == -signal.SIGTERM  # stopped by the supervisor, politely
    assert (s.liveness_stops, s.restarts) == (3, 2)


def test_a_silent_child_that_ignores_sigterm_is_killed_with_the_processes_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    s = Supervisor("stubborn", _sleeper(ignore_term=True, grandchild=pid_file), min_delay=0.01,
                   max_restarts=0, liveness_file=tmp_path / "hb", liveness_max_age=1, liveness_grace=1,
                   check_every=0.05, stop_timeout=0.5)
    assert s.run() == -signal.SIGKILL
    grandchild = int(pid_file.read_text())
    wait_until(lambda: not realservers.process_alive(grandchild), 10, "the grandchild to be gone")
    assert s.liveness_stops == 1


def test_a_child_that_keeps_touching_its_file_is_left_alone(tmp_path: Path) -> None:
    hb = tmp_path / "hb"
    # Touches every 0.1 s for 40 touches (a few seconds: several times the max-age), then exits 7.
    busy = [sys.executable, "-c",
            f"import pathlib, time\nfor _ in range(40):\n    pathlib.Path({str(hb)!r}).touch()\n"
            "    time.sleep(0.1)\nraise SystemExit(7)"]
    s = Supervisor("busy", busy, min_delay=0.01, max_restarts=0, liveness_file=hb, liveness_max_age=1.5,
                   check_every=0.05)
    assert s.run() == 7
    assert s.liveness_stops == 0


def test_supervise_command_restarts_a_silent_child_and_says_why(tmp_path: Path) -> None:
    log = tmp_path / "supervise.log"
    hb = tmp_path / "hb"
    ready = tmp_path / "ready"
    # Each child says when its SIGTERM handler is in place: a SIGTERM before that (a busy
    # machine starts Python slowly) would kill it as a signal does, exit status 143.
    child = ("import os, pathlib, signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
             f"with pathlib.Path({str(ready)!r}).open('a') as f:\n    f.write(f'{{os.getpid()}}\\n')\n"
             "time.sleep(120)")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(SUPERVISE), "--name", "worker", "--min-delay", "0.1",
             "--liveness-file", str(hb), "--liveness-max-age", "1", "--liveness-grace", "1",
             "--", sys.executable, "-c", child],
            stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        wait_until(lambda: log.read_text().count("started pid") >= 3, 60, "two restarts of the silent child")
        # The child now running is ready (as many ready as started): its handler is in place.
        def running_child_ready() -> bool:
            return ready.exists() and len(ready.read_text().split()) == log.read_text().count("started pid")

        wait_until(running_child_ready, 60, "the running child's SIGTERM handler")
        text = log.read_text()
        said = (rf"no sign of life in {re.escape(str(hb))} for \d+s \(more than 1s\): "
                r"stopping pid \d+ \(SIGTERM, then SIGKILL after 20s\)")
        assert re.search(said, text), text
        assert "exited with status 0" in text
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--liveness-file", "x"], "--liveness-file and --liveness-max-age go together"),
        (["--liveness-max-age", "5"], "--liveness-file and --liveness-max-age go together"),
        (["--liveness-file", "x", "--liveness-max-age", "0"], "--liveness-max-age must be a positive"),
        (["--liveness-file", "x", "--liveness-max-age", "nan"], "--liveness-max-age must be a positive"),
        (["--liveness-file", "x", "--liveness-max-age", "5", "--stop-timeout", "-1"], "--stop-timeout must"),
        (["--liveness-file", "x", "--liveness-max-age", "soon"], "invalid float value: 'soon'"),
    ],
)
def test_supervise_refuses_bad_liveness_flags(tmp_path: Path, args: list[str], words: str) -> None:
    marker = tmp_path / "ran"
    result = subprocess.run([sys.executable, str(SUPERVISE), *args, "--", "touch", str(marker)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and words in result.stderr
    assert not marker.exists()  # nothing was started


# ---------------------------------------------------------------------------------------------
# The development stack's lanes on the filesystem broker (Procfile.dev, scripts/dev)


def _procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile.dev").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def _dev_env(tmp_path: Path, queue: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CELERY_", "REDIS_", "DATABASE_", "EMAIL_"))}
    env.update(
        VAR_DIR=str(tmp_path / "var"), CELERY_QUEUE=queue, DJANGO_DEBUG="1", PYTHONUNBUFFERED="1",
        WORKER_HEARTBEAT_SECONDS="1", WORKER_LIVENESS_MAX_AGE="3",
        # Only the heartbeats: the database of these processes has no tables.
        SWEEP_INTERVAL_SECONDS="3600", OUTBOX_RELAY_SECONDS="3600",
    )
    return env


def _publish_ping(env: dict[str, str], queue: str) -> str:
    """A ping to ``queue`` through the filesystem broker, from a process of those settings;
    what its worker logs when it answers."""
    token = uuid.uuid4().hex
    code = ("from pirates_site.celery import app\n"
            f"app.send_task('games.ping', args=[{token!r}], queue={queue!r}, ignore_result=True)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=60,
                   capture_output=True)
    return f"pong:{token}"


def _written_by(path: Path, pid: int) -> bool:
    match = re.search(r"pid (\d+)", path.read_text() if path.exists() else "")
    return match is not None and int(match[1]) == pid


def _wait_written_by(path: Path, pid: int) -> None:
    wait_until(lambda: _written_by(path, pid), 60, f"{path.name} written by pid {pid}")


def _wait_in_log(log: Path, text: str) -> None:
    wait_until(lambda: text in log.read_text(errors="replace"), 60, f"{text} in {log.name}")


@pytest.mark.slow
def test_the_dev_worker_and_mailer_each_consume_their_lane_from_the_folder_broker(tmp_path: Path) -> None:
    queue = "dev-lanes"
    env = _dev_env(tmp_path, queue)
    procs = _procfile()
    assert set(procs) == {"web", "worker", "mailer", "beat"}
    var, logs = tmp_path / "var", {lane: tmp_path / f"{lane}.log" for lane in ("worker", "mailer", "beat")}
    with (
        realservers.started(["sh", "-c", procs["worker"]], env, logs["worker"], "ready.", 90) as worker,
        realservers.started(["sh", "-c", procs["mailer"]], env, logs["mailer"], "ready.", 90) as mailer,
        realservers.started(["sh", "-c", "exec " + procs["beat"]], env, logs["beat"], "beat: Starting", 90),
    ):
        # Each lane's heartbeat is run by the process of that lane.
        _wait_written_by(var / f"worker-heartbeat-{queue}", worker.pid)
        _wait_written_by(var / f"worker-heartbeat-{queue}-mail", mailer.pid)
        pongs = {"worker": _publish_ping(env, queue), "mailer": _publish_ping(env, f"{queue}-mail")}
        for lane, pong in pongs.items():
            _wait_in_log(logs[lane], pong)
        assert pongs["mailer"] not in logs["worker"].read_text()
        assert pongs["worker"] not in logs["mailer"].read_text()


@pytest.mark.slow
def test_one_worker_consumes_both_lanes_from_the_folder_broker(tmp_path: Path) -> None:
    """What tests/realservers.py's worker does (on Redis there), on the folder broker."""
    queue = "dev-both"
    env = _dev_env(tmp_path, queue)
    log = tmp_path / "both.log"
    command = realservers.celery_worker_command(log)
    command = [arg for arg in command if not arg.startswith("--queues=")] + [f"--queues={queue},{queue}-mail"]
    beat = [sys.executable, "-m", "celery", "-A", "pirates_site", "beat", "--loglevel=INFO"]
    with (
        realservers.started(command, env, tmp_path / "both.out", "ready.", 90, ready_file=log) as worker,
        realservers.started(beat, env, tmp_path / "beat.log", "beat: Starting", 90),
    ):
        _wait_written_by(tmp_path / "var" / f"worker-heartbeat-{queue}", worker.pid)
        _wait_written_by(tmp_path / "var" / f"worker-heartbeat-{queue}-mail", worker.pid)
