"""Self-contained HTML reports. See :mod:`creval.report.registry` for adding sections."""
