"""Extract the three samples with the embedded rules backend and print a table per document.

The main job runs the service path (REST API, Celery worker, Redis: ``samples.service_demo``)
when a Redis can be had, starting a private one if none runs; otherwise, or with ``--cli``, it
runs the CLI (`evidex extract ...`) for each sample. Results and highlighted PDFs go to ``out/``.
Set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server) and pass ``--llm openai`` to
run the same samples through a model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from evidex.service.cli import main as evidex_cli

HERE = Path(__file__).parent
SAMPLES = (
    ("invoice.pdf", "invoice"),
    ("cv.pdf", "candidate_profile"),
    ("contract.pdf", "contract"),
)


def run(out_dir: Path, llm: str = "rules") -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    worst = 0
    for filename, schema in SAMPLES:
        stem = Path(filename).stem
        argv = [
            "extract",
            str(HERE / filename),
            "--schema",
            schema,
            "--llm",
            llm,
            "--out",
            str(out_dir / f"{stem}.result.json"),
            "--annotate",
            str(out_dir / f"{stem}.highlighted.pdf"),
        ]
        print(f"\n$ evidex {' '.join(argv)}", flush=True)
        worst = max(worst, evidex_cli(argv))
    print(f"\nresults and highlighted PDFs are in {out_dir}/")
    return worst


def main(argv: list[str]) -> int:
    llm = argv[argv.index("--llm") + 1] if "--llm" in argv else "rules"
    out = Path("out")
    if "--cli" not in argv:
        os.environ["EVIDEX_LLM"] = llm
        from samples.service_demo import run as run_service

        try:
            return 0 if run_service(out) else run(out, llm)
        except RuntimeError as exc:
            print(f"(service path unavailable: {exc}; running the CLI instead)")
    return run(out, llm)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
