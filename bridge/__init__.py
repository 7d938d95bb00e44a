"""bridge: check concurrent models (Promela, CSP#) under fairness, beside SPIN."""

__version__ = "0.1.0"
