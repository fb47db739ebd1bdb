"""An inspect_ai task as the scorer of a live search: ``paperlib.search(models, sample_ids, InspectScorer(task), ...)``.

Each pair (model, sample id) is one sample of ``task`` evaluated by inspect_ai with that model, scored by the task's
own scorer, its value mapped to [0, 1] by inspect_ai's ``value_to_float``. inspect_ai allows one ``eval`` at a time in a
process, so the search's worker threads do not each call it: they queue their pairs, and one thread runs the evals,
each taking every queued sample of one model (``eval(task, model, sample_id=[...])``; inspect_ai's own
``max_connections`` and ``max_samples`` give the concurrency within it). While an eval runs, the next pairs queue
up, so the evals grow with the number of workers. Every eval writes its log where inspect_ai writes logs
(``log_dir``), so each paid call is also in an inspect log.

Needs the ``inspect`` extra (``pip install 'paperlib[inspect]'``).
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
from concurrent.futures import Future


class InspectScorer:
    """``score(model, sample_id) -> float`` backed by inspect_ai.

    Parameters
    ----------
    task : inspect_ai.Task
        The benchmark; the search's examples are (some of) its sample ids.
    models : dict, optional
        The search's model names to inspect_ai model names (e.g. ``{"gpt": "openai/gpt-4o"}``); default: the names
        are inspect_ai's.
    scorer : str, optional
        Which of the task's scorers gives the score (needed when it has several).
    **eval_args
        Passed to ``inspect_ai.eval`` (``log_dir``, ``max_connections``, ``model_args``, ...); ``display`` defaults
        to ``"none"`` and ``fail_on_error`` to False (a sample that errors is that pair's failure, retried by the
        search, and does not fail the other pairs of its eval).
    """

    def __init__(self, task, models: dict | None = None, scorer: str | None = None, **eval_args):
        try:
            import inspect_ai  # noqa: F401
        except ImportError:
            raise ImportError("InspectScorer needs inspect_ai: pip install 'paperlib[inspect]'") from None
        self.task, self.models, self.scorer = task, dict(models or {}), scorer
        self.eval_args = {"display": "none", "fail_on_error": False, **eval_args}
        if "sample_id" in self.eval_args or "model" in self.eval_args:
            raise ValueError("sample_id and model are chosen by the search, not passed to InspectScorer")
        self._queue: queue.Queue = queue.Queue()
        self._runner: threading.Thread | None = None
        self._start = threading.Lock()
        self.evals = 0

    def identity(self) -> dict:
        """What decides the scores, for the journal's header: the task's name, the model map and the scorer."""
        what = {"task": getattr(self.task, "name", repr(self.task)), "models": self.models, "scorer": self.scorer}
        digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()
        return {"scorer": f"inspect_ai:{what['task']}", "scorer_files_sha256": {"inspect": digest}}

    def __call__(self, model: str, example) -> float:
        done: Future = Future()
        self._queue.put((model, example, done))
        with self._start:
            if self._runner is None or not self._runner.is_alive():
                self._runner = threading.Thread(target=self._run, name="paperlib-inspect", daemon=True)
                self._runner.start()
        return done.result()

    def _run(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=1.0)
            except queue.Empty:
                with self._start:
                    if self._queue.empty():
                        self._runner = None
                        return
                continue
            batch = [first]
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            by_model: dict[str, list] = {}
            for model, example, done in batch:
                by_model.setdefault(model, []).append((example, done))
            for model, items in by_model.items():
                self._eval(model, items)

    def _eval(self, model: str, items: list) -> None:
        from inspect_ai import eval as inspect_eval

        from .data.harness import eval_log_scores

        ids = list(dict.fromkeys(example for example, _ in items))
        try:
            log, = inspect_eval(self.task, model=self.models.get(model, model), sample_id=ids, **self.eval_args)
            self.evals += 1
            if log.status != "success":
                raise RuntimeError(f"inspect_ai eval of {model} ended with status {log.status!r}: "
                                   f"{getattr(log.error, 'message', '')}"[:300])
            scores, _ = eval_log_scores(log, f"inspect_ai eval of {model}", self.scorer, require_all=False)
        except BaseException as exc:  # the pairs' failure (journaled and retried by the search), not the runner's
            for _, done in items:
                done.set_exception(exc)
            return
        for example, done in items:
            if str(example) in scores:
                done.set_result(scores[str(example)])
            else:
                done.set_exception(RuntimeError(f"inspect_ai gave no score for sample {example!r} of {model} (the "
                                                "sample errored, or no such sample id)"))
