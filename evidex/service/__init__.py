"""The edges: the REST app and the command line.

``app`` (``create_app``/``production_app``) wires the routes (``jobs``, ``catalog``, ``health``)
to injected stores and queue; ``auth`` (API key → tenant, rate limit via ``ratelimit``),
``intake`` (checking and accepting a document), ``problems`` (every error as RFC 9457, one
table), ``views`` (response models), ``settings`` (``ServiceSettings``), ``cli`` (``evidex``).
"""
