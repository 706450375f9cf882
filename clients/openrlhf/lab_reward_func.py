"""OpenRLHF custom reward function that posts to the Reward Lab reward server.

OpenRLHF can call the server directly (``--reward.remote_url
http://HOST:5000/get_reward --data.label_key answer`` since its config rework
of 2026-04; ``--remote_rm_url … --label_key …`` before); this file is the
other way in, for setups that load a Python ``reward_func`` instead
(``--reward.remote_url clients/openrlhf/lab_reward_func.py``), e.g. to reach
the server through a proxy.

OpenRLHF calls ``reward_func(queries, prompts, labels)`` with queries = prompt
+ response (since its streaming-sampling rework of 2026-01-05, one rollout
per call: for ``grr`` start the server with ``--group-size`` equal to
``--rollout.n_samples_per_prompt``); the function posts the same body OpenRLHF would post
(``{"query", "prompts", "labels"}``) and returns ``{"rewards", "scores",
"extra_logs"}``, as torch tensors when torch is importable (inside OpenRLHF
it is), else as lists. Python standard library only (torch optional).

Environment: ``REWARD_SERVER_URL`` (default ``http://127.0.0.1:5000``),
``REWARD_SERVER_TIMEOUT`` (seconds, default 600), ``REWARD_SERVER_RETRIES``
(attempts, default 5).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Sequence

__all__ = ["reward_func"]


def _post(body: Dict[str, Any]) -> Dict[str, Any]:
    url = os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:5000").rstrip("/") + "/get_reward"
    data = json.dumps(body).encode("utf-8")
    timeout = float(os.environ.get("REWARD_SERVER_TIMEOUT", "600"))
    attempts = int(os.environ.get("REWARD_SERVER_RETRIES", "5"))
    last = None
    for attempt in range(attempts):
        request = urllib.request.Request(
            url, data=data, headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")
            if error.code in (400, 413):
                raise ValueError(f"reward server refused the batch: {detail}") from None
            last = f"HTTP {error.code}: {detail}"
            wait = error.headers.get("Retry-After")
            time.sleep(float(wait) if wait and wait.isdigit() else min(30.0, 2.0**attempt))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            last = str(error)
            time.sleep(min(30.0, 2.0**attempt))
    raise RuntimeError(f"reward server at {url} failed {attempts} times: {last}")


def _label(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def reward_func(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any
) -> Dict[str, Any]:
    """OpenRLHF reward function: rewards (R_i), scores (r_ver_i) and extra_logs (components)."""
    reply = _post(
        {"query": list(queries), "prompts": list(prompts), "labels": [_label(x) for x in labels]}
    )
    rewards: List[float] = reply["rewards"]
    scores: List[float] = reply.get("scores", rewards)
    extra: Dict[str, List[float]] = reply.get("extra_logs", {})
    try:
        import torch  # noqa: PLC0415 (optional: present inside OpenRLHF)
    except ImportError:
        return {"rewards": rewards, "scores": scores, "extra_logs": extra}
    return {
        "rewards": torch.tensor(rewards, dtype=torch.float32),
        "scores": torch.tensor(scores, dtype=torch.float32),
        "extra_logs": {k: torch.tensor(v, dtype=torch.float32) for k, v in extra.items()},
    }


if __name__ == "__main__":
    import sys

    # A check from the shell: python3 clients/openrlhf/lab_reward_func.py < body.json
    body = json.load(sys.stdin)
    print(json.dumps(reward_func(body["query"], body["prompts"], body["labels"])))
