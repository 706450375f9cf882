"""verl reward function that posts rollouts to the Reward Lab reward server.

Python standard library only. Start the server first
(``npm run serve:rewards -- --variant grr --port 5000``), then point verl at
this file::

    reward_model.reward_manager=batch \\
    custom_reward_function.path=clients/verl/lab_reward.py \\
    custom_reward_function.name=compute_score

With the batch reward manager verl calls ``compute_score(data_sources=...,
solution_strs=..., ground_truths=..., extra_infos=...)`` once per batch; the
rollouts of one prompt are sent as one group (GRR ranks within it). verl does
not pass the prompt to a batch reward function, so the group of a rollout is
read from its ``extra_info``: ``extra_info["uid"]`` if present, else
``(data_source, extra_info["split"], extra_info["index"])`` as verl's
preprocessing scripts write them; without either, a rollout is its own
group. The judge sees ``extra_info["question"]`` (or ``["prompt"]``) as the
question when present.

Each result is a dict ``{"score": R, <component>: value, ...}``: verl uses
``score`` as the reward and logs the other keys.

``compute_score_single`` is the per-rollout form for verl's naive reward
manager (one request per rollout; no groups, so for ``rlvr`` and
``structreward`` only).

Environment: ``REWARD_SERVER_URL`` (default ``http://127.0.0.1:5000``),
``REWARD_SERVER_TIMEOUT`` (seconds per request, default 600),
``REWARD_SERVER_RETRIES`` (attempts per request, default 5),
``REWARD_SERVER_CHUNK`` (rollouts per request, default 2048; a group is never
split).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["compute_score", "compute_score_single", "group_id_of"]


def _url() -> str:
    return os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:5000").rstrip("/")


def _post(path: str, body: Dict[str, Any]) -> Dict[str, Any]:
    """POST JSON; retry on connection errors, 503 (honouring Retry-After) and 5xx."""
    data = json.dumps(body).encode("utf-8")
    timeout = float(os.environ.get("REWARD_SERVER_TIMEOUT", "600"))
    attempts = int(os.environ.get("REWARD_SERVER_RETRIES", "5"))
    last: Optional[str] = None
    for attempt in range(attempts):
        request = urllib.request.Request(
            _url() + path, data=data, headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")
            if error.code == 400 or error.code == 413:
                raise ValueError(f"reward server refused the batch: {detail}") from None
            last = f"HTTP {error.code}: {detail}"
            wait = error.headers.get("Retry-After")
            time.sleep(float(wait) if wait and wait.isdigit() else min(30.0, 2.0**attempt))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            last = str(error)
            time.sleep(min(30.0, 2.0**attempt))
    raise RuntimeError(f"reward server at {_url()} failed {attempts} times: {last}")


def group_id_of(data_source: Any, extra_info: Any) -> Optional[str]:
    """The group of a rollout: rollouts of one prompt share it (None: its own group)."""
    if not isinstance(extra_info, dict):
        return None
    if extra_info.get("uid") is not None:
        return f"uid:{extra_info['uid']}"
    if extra_info.get("index") is not None:
        return f"{data_source}#{extra_info.get('split', '')}#{extra_info['index']}"
    return None


def _question_of(extra_info: Any) -> str:
    if isinstance(extra_info, dict):
        for key in ("question", "prompt"):
            if isinstance(extra_info.get(key), str):
                return extra_info[key]
    return ""


def _jsonable(value: Any) -> Any:
    """Ground truths as JSON: numpy scalars and arrays become Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def compute_score(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Any]] = None,
    **kwargs: Any,
) -> List[Dict[str, float]]:
    """verl batch reward function: one dict per rollout, in order.

    Raises ValueError when the server refuses the batch (400/413, with the
    server's message naming the field) and RuntimeError when it cannot be
    reached after every retry.
    """
    n = len(solution_strs)
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    sources = list(data_sources) if data_sources is not None else [None] * n
    groups = [group_id_of(sources[i], infos[i]) for i in range(n)]
    # Chunks of whole groups, at most REWARD_SERVER_CHUNK rollouts each (a larger group is sent alone).
    chunk = int(os.environ.get("REWARD_SERVER_CHUNK", "2048"))
    members: Dict[Any, List[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g if g is not None else ("own", i), []).append(i)
    batches: List[List[int]] = [[]]
    for idx in members.values():
        if batches[-1] and len(batches[-1]) + len(idx) > chunk:
            batches.append([])
        batches[-1].extend(idx)
    results: List[Optional[Dict[str, float]]] = [None] * n
    for batch in batches:
        if not batch:
            continue
        reply = _post(
            "/verl/compute_score",
            {
                "solution_strs": [solution_strs[i] for i in batch],
                "ground_truths": [_jsonable(ground_truths[i]) for i in batch],
                "group_ids": [groups[i] for i in batch],
                "prompts": [_question_of(infos[i]) for i in batch],
            },
        )
        rows = reply["results"]
        if len(rows) != len(batch):
            raise RuntimeError(f"reward server returned {len(rows)} results for {len(batch)} rollouts")
        for i, row in zip(batch, rows):
            results[i] = row
    return results  # type: ignore[return-value]


def compute_score_single(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> Dict[str, float]:
    """verl naive reward function (one rollout per call, so no groups)."""
    return compute_score([data_source], [solution_str], [ground_truth], [None])[0]


if __name__ == "__main__":
    import sys

    # A check from the shell: python3 clients/verl/lab_reward.py < batch.json
    batch = json.load(sys.stdin)
    print(json.dumps(compute_score(**batch)))
