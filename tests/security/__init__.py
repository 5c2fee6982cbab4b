"""Hostile requests, one file per area: each sends what an attacker would and asserts the
status, the service's error format, and that nothing changed, leaked or grew unbounded."""
