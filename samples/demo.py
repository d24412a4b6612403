"""Extract the three samples with the embedded rules backend and print a table per document.

Runs the real CLI (`evidex extract ...`) for each sample and writes the result JSON and the
highlighted PDF under ``out/``. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)
and pass ``--llm openai`` to run the same samples through a model.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evidex.service.cli import main

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
        worst = max(worst, main(argv))
    print(f"\nresults and highlighted PDFs are in {out_dir}/")
    return worst


if __name__ == "__main__":
    llm = sys.argv[sys.argv.index("--llm") + 1] if "--llm" in sys.argv else "rules"
    sys.exit(run(Path("out"), llm))
