"""The Celery app and tasks, job store and blob store (thin: load a job, call extractors)."""
