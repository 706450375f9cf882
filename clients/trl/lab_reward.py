"""Hugging Face TRL reward function that posts to the Reward Lab reward server.

TRL's ``GRPOTrainer`` calls each reward function once per batch with keyword
arguments: ``prompts``, ``completions``, every other column of the dataset
(one list entry per rollout) and ``trainer_state``, the ``num_generations``
completions of a prompt next to each other. It takes back one float per
rollout, or None for a rollout the function does not score.

``lab_reward`` posts the whole batch with its groups to the server's batch
endpoint (``POST /verl/compute_score``: ``{"solution_strs",
"ground_truths", "group_ids", "prompts"}``) and returns the server's totals.
A group is a run of consecutive rollouts with the same prompt (its id unique
to the call), so GRR ranks each prompt's completions together, and two runs
of one prompt in a batch are two groups, as TRL computes advantages. Rollouts whose label is None are not
sent and get None. Python standard library only::

    from trl import GRPOConfig, GRPOTrainer
    import sys; sys.path.insert(0, "clients/trl")
    from lab_reward import lab_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[lab_reward],
                          args=GRPOConfig(num_generations=8, ...), train_dataset=dataset)

Prompts and completions may be plain text or conversations (lists of
``{"role", "content"}`` messages, content text or a list of parts whose
``"text"`` entries count). A conversation's prompt is sent as its messages'
text, one per line; the completion is the assistant messages' text.

Environment: ``REWARD_SERVER_URL`` (default ``http://127.0.0.1:5000``),
``REWARD_LABEL_KEY`` (the dataset column holding the label, default
``answer``), ``REWARD_SERVER_TIMEOUT`` (seconds, default 600),
``REWARD_SERVER_RETRIES`` (attempts, default 5).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["lab_reward"]


def _post(path: str, body: Dict[str, Any]) -> Dict[str, Any]:
    url = os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:5000").rstrip("/") + path
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
            if 400 <= error.code < 500 and error.code != 429:
                raise ValueError(f"reward server refused the batch: {detail}") from None
            last = f"HTTP {error.code}: {detail}"
            wait = error.headers.get("Retry-After")
            time.sleep(float(wait) if wait and wait.isdigit() else min(30.0, 2.0**attempt))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            last = str(error)
            time.sleep(min(30.0, 2.0**attempt))
    raise RuntimeError(f"reward server at {url} failed {attempts} times: {last}")


def _text(value: Any, roles: Optional[Sequence[str]] = None) -> str:
    """Plain text of a prompt or completion: a string, or a conversation's messages' text."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise ValueError(f"expected a string or a list of messages, got {type(value).__name__}")
    lines = []
    for message in value:
        if roles is not None and message.get("role") not in roles:
            continue
        content = message.get("content", "")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        lines.append(str(content))
    return "\n".join(lines)


def _label(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def lab_reward(
    prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
) -> List[Optional[float]]:
    """TRL reward function: the server's reward R per completion (None where the label is None)."""
    key = os.environ.get("REWARD_LABEL_KEY", "answer")
    if key not in kwargs:
        columns = sorted(k for k in kwargs if k != "trainer_state")
        raise ValueError(
            f"dataset column '{key}' (REWARD_LABEL_KEY) not passed; columns: {columns}"
        )
    labels = list(kwargs[key])
    if not (len(prompts) == len(completions) == len(labels)):
        raise ValueError(
            f"prompts ({len(prompts)}), completions ({len(completions)}) and "
            f"{key} ({len(labels)}) must have one entry per rollout"
        )
    prompt_texts = [_text(p) for p in prompts]
    # Runs of one prompt; the batch's own prefix keeps them apart from other batches' groups.
    batch = uuid.uuid4().hex
    group_ids: List[str] = []
    run = -1
    for i, text in enumerate(prompt_texts):
        if i == 0 or text != prompt_texts[i - 1]:
            run += 1
        group_ids.append(f"{batch}:{run}")
    sent = [i for i, label in enumerate(labels) if label is not None]
    out: List[Optional[float]] = [None] * len(completions)
    if not sent:
        return out
    reply = _post(
        "/verl/compute_score",
        {
            "solution_strs": [_text(completions[i], ("assistant",)) for i in sent],
            "ground_truths": [_label(labels[i]) for i in sent],
            "group_ids": [group_ids[i] for i in sent],
            "prompts": [prompt_texts[i] for i in sent],
        },
    )
    for i, row in zip(sent, reply["results"]):
        out[i] = float(row["score"])
    return out


if __name__ == "__main__":
    import sys

    # A check from the shell: python3 clients/trl/lab_reward.py < kwargs.json
    print(json.dumps(lab_reward(**json.load(sys.stdin))))
