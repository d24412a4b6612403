"""The chaos run's model server and documents: a server speaking the OpenAI Responses wire format
that is slow, answers HTTP 500 to a seeded share of calls and hangs on another, and never answers
a call for the poisoned document (its worker is killed meanwhile); the invoice it answers
perfectly, and that invoice poisoned."""

from __future__ import annotations

import copy
import json
import random
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.schemas import get_schema
from tests.service_stack import ROOT, ModelServer

__all__ = ["INVOICE", "POISON_MARK", "USAGE_PER_CALL", "ChaosModel", "perfect_reply", "poison_pdf"]

INVOICE = (ROOT / "samples" / "invoice.pdf").read_bytes()
FIXTURE = ROOT / "tests" / "fixtures" / "openai" / "responses_completed.json"
POISON_MARK = "evidex-chaos: this document kills its worker"


def poison_pdf() -> bytes:
    """The invoice with a line the model server recognises: the poisoned job's document."""
    import pymupdf

    doc = pymupdf.open(stream=INVOICE, filetype="pdf")
    doc[0].insert_text((72, 40), POISON_MARK, fontsize=8)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def perfect_reply() -> bytes:
    from tests.sample_answers import perfect_fields

    lines = PyMuPDFParser().parse(INVOICE, "invoice.pdf").lines
    answer = build_answer(get_schema("invoice"), perfect_fields("invoice", lines))
    body: dict[str, Any] = copy.deepcopy(json.loads(FIXTURE.read_text(encoding="utf-8")))
    body["output"][0]["content"][0]["text"] = json.dumps(answer)
    return json.dumps(body).encode()


USAGE_PER_CALL = int(json.loads(FIXTURE.read_text(encoding="utf-8"))["usage"]["total_tokens"])


class ChaosModel(ModelServer):
    """``POST /v1/responses``: 500 (share ``p500``), hang (share ``phang``: no answer for
    ``hang_s``, then the connection closes) or, after ``latency_s``, 200 with ``body``."""

    queue_size = 256

    def __init__(
        self, body: bytes, latency_s: float, p500: float, phang: float, hang_s: float, seed: int
    ) -> None:
        super().__init__()
        self.requests = self.answered = self.failed = self.hung = self.poison_calls = 0
        self.body, self.latency_s, self.p500, self.phang = body, latency_s, p500, phang
        self.hang_s, self.rng = hang_s, random.Random(seed)

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        if POISON_MARK.encode() in sent:  # its worker is killed meanwhile
            with self.lock:
                self.poison_calls += 1
            self._hang(request)
            return
        with self.lock:
            self.requests += 1
            draw = self.rng.random()
        if draw < self.p500:
            time.sleep(self.latency_s)
            self.send(request, 500, _error_body())
            with self.lock:
                self.failed += 1
        elif draw < self.p500 + self.phang:
            with self.lock:
                self.hung += 1
            self._hang(request)
        else:
            with self.counted():  # in flight: will be answered 200, not answered yet
                time.sleep(self.latency_s)
                sent_ok = self.send(request, 200, self.body)  # False: its worker was killed
            with self.lock:
                self.answered += sent_ok

    def _hang(self, request: BaseHTTPRequestHandler) -> None:
        time.sleep(self.hang_s)
        request.close_connection = True

    def snapshot_in_flight(self) -> int:
        with self.lock:
            return self.in_flight


def _error_body() -> bytes:
    return json.dumps({"error": {"message": "chaos: HTTP 500", "type": "server_error"}}).encode()
