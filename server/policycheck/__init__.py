"""`supalite policies check`: a declarative permission matrix run against the database.

A DBA writes policies/matrix.yaml (personas x table-or-function x operation -> expected
outcome); the checker creates fixture data, runs every cell as its persona inside one
transaction (a savepoint per cell, everything rolled back at the end), prints the matrix
and marks each cell where reality differs. Nothing here knows about any particular app.
"""

from server.policycheck.matrix import CellResult, Matrix, MatrixError, load_matrix
from server.policycheck.report import render
from server.policycheck.runner import run_check, run_matrix

__all__ = ["CellResult", "Matrix", "MatrixError", "load_matrix", "render", "run_check", "run_matrix"]
