"""CSP# back-end: emit CSP# for PAT from the IR (``emit_csp``)."""
