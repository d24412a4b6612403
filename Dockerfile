# syntax=docker/dockerfile:1
# evidex: one image for both processes -- `evidex serve` (the API) and `evidex worker` (Celery).
# Licence: AGPL-3.0-or-later (PyMuPDF is AGPL); the image carries evidex's source in site-packages.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# Only what the package build needs: no .venv, .git, tests or samples in the image.
COPY pyproject.toml README.md LICENSE ./
COPY evidex ./evidex
RUN python -m venv /opt/evidex \
    && /opt/evidex/bin/pip install --upgrade pip \
    && /opt/evidex/bin/pip install .

FROM python:3.11-slim
LABEL org.opencontainers.image.title="evidex" \
      org.opencontainers.image.licenses="AGPL-3.0-or-later"
ENV PATH=/opt/evidex/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    EVIDEX_DATA_DIR=/data
# Local OCR: Tesseract, and the shared libraries OpenCV needs (RapidOCR reads images through it).
RUN apt-get update \
    && apt-get install --yes --no-install-recommends tesseract-ocr libgl1 libglib2.0-0 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 evidex \
    && useradd --system --uid 10001 --gid evidex --create-home --home-dir /home/evidex evidex \
    && mkdir -p /data \
    && chown evidex:evidex /data
COPY --from=build /opt/evidex /opt/evidex
USER evidex
WORKDIR /home/evidex
VOLUME ["/data"]
EXPOSE 8000
CMD ["evidex", "serve", "--host", "0.0.0.0", "--port", "8000"]
