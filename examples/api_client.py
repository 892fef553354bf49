#!/usr/bin/env python3
"""An example client of the Pirates by Mail API: it plays one seat of a game with a bot
policy, over HTTP alone.

It uses only the standard library and the documented endpoints (see /api/docs/):

    POST /api/auth/token/            trade a username and password for a token
    GET  /api/games/                 your games (to find one when --game is not given)
    GET  /api/games/{id}/            the game as you see it: `moves` lists your numbered moves
    POST /api/games/{id}/actions/    play one of them, with the seq you read
    POST /api/games/{id}/chat/       say something at the table (with --say)

The API has no push: the client polls the game, more slowly the longer nothing changes for
it, and answers 429 and 503 by waiting the seconds in Retry-After.

    python examples/api_client.py --url http://localhost:8000 --username anne \\
        --password pirates-ahoy --policy random

It prints one JSON line when the game is over (or aborted): the game, its status, how many
moves this client played, and the result. Exit status 0 then; 1 on an error it cannot get
past, 2 when --max-seconds ran out.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

OVER = ("finished", "aborted")


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"HTTP {status}: {body.get('error')}: {body.get('detail')}")
        self.status = status
        self.body = body


class Api:
    """A few lines of JSON over HTTP, with the token once there is one."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/")
        self.token = ""
        self.timeout = timeout

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        for _attempt in range(10):
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(self.base + path, data=data, method=method)
            request.add_header("Accept", "application/json")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            if self.token:
                request.add_header("Authorization", f"Token {self.token}")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as exc:
                raw = exc.read()
                try:
                    payload = json.loads(raw)
                except ValueError:
                    payload = {"error": "http", "detail": raw[:200].decode(errors="replace")}
                if exc.code in (429, 503):  # throttled, or the database is restarting
                    time.sleep(min(60.0, float(exc.headers.get("Retry-After") or 1)))
                    continue
                raise ApiError(exc.code, payload) from None
        raise ApiError(503, {"error": "unavailable", "detail": "still unavailable after 10 tries"})

    def log_in(self, username: str, password: str) -> None:
        answer = self.call("POST", "/api/auth/token/", {"username": username, "password": password})
        self.token = answer["token"]


def choose(moves: list[dict[str, Any]], policy: str, rng: random.Random) -> dict[str, Any]:
    """The move to play: ``first`` takes move 1 (the table's first offer), ``random`` any."""
    if policy == "first":
        return min(moves, key=lambda move: move["number"])
    return rng.choice(moves)


def find_game(api: Api) -> int:
    """The first of your games that is running or waiting to start (your move first)."""
    mine = api.call("GET", "/api/games/")["mine"]
    for game in mine:
        if game["status"] not in OVER:
            return int(game["id"])
    raise SystemExit("You have no running game: create or join one first (or pass --game).")


def play(api: Api, game_id: int, *, policy: str, seed: int, poll: float, max_seconds: float,
         say: str = "", verbose: bool = False) -> dict[str, Any]:
    rng = random.Random(seed)
    deadline = time.monotonic() + max_seconds
    played = 0
    wait = 0.02
    said = False
    while True:
        game = api.call("GET", f"/api/games/{game_id}/")
        if game["status"] in OVER:
            return {"game": game_id, "status": game["status"], "seat": game["your_seat"],
                    "moves_played": played, "result": game["result"]}
        if say and not said and game["status"] == "active":
            api.call("POST", f"/api/games/{game_id}/chat/", {"text": say})
            said = True
        moves = game["moves"]
        if not moves:
            if time.monotonic() > deadline:
                raise TimeoutError(f"game {game_id} did not end within {max_seconds} seconds")
            time.sleep(wait)
            wait = min(poll, wait * 1.5)  # back off while others think
            continue
        move = choose(moves, policy, rng)
        if verbose:
            print(f"seq {game['seq']}: {move['number']}. {move['label']}: {move['preview']}", file=sys.stderr)
        try:
            api.call("POST", f"/api/games/{game_id}/actions/", {
                "action": move["action"],
                "expected_seq": game["seq"],
                # A retried request plays the move once.
                "idempotency_key": f"api-client-{game_id}-{game['your_seat']}-{game['seq']}",
            })
        except ApiError as exc:
            # Another seat acted between our read and our move: read again and choose again.
            if exc.body.get("error") not in ("stale_seq", "not_your_turn", "conflict"):
                raise
        else:
            played += 1
        wait = 0.02


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="The service's base URL, e.g. http://localhost:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--game", type=int, help="The game's id (default: your first running game)")
    parser.add_argument("--policy", choices=["random", "first"], default="random")
    parser.add_argument("--seed", type=int, default=0, help="Seeds the random policy")
    parser.add_argument("--poll", type=float, default=2.0, help="Longest pause between polls, in seconds")
    parser.add_argument("--max-seconds", type=float, default=3600.0, help="Give up after this long")
    parser.add_argument("--say", default="", help="A line to write at the table once the game runs")
    parser.add_argument("--verbose", action="store_true", help="Print each move played to stderr")
    args = parser.parse_args(argv)

    api = Api(args.url)
    try:
        api.log_in(args.username, args.password)
        game_id = args.game if args.game is not None else find_game(api)
        summary = play(api, game_id, policy=args.policy, seed=args.seed, poll=args.poll,
                       max_seconds=args.max_seconds, say=args.say, verbose=args.verbose)
    except ApiError as exc:
        print(f"api_client: {exc}", file=sys.stderr)
        return 1
    except TimeoutError as exc:
        print(f"api_client: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
