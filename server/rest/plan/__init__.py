"""The plan stage: an ApiRequest resolved against the schema cache (PostgREST's Plan.hs).

read.py plans relation reads (and the returned rows of writes and calls), mutate.py writes,
call.py function calls. Every PGRST2xx (and the PGRST1xx that need the schema) is raised
here; what comes out composes into SQL without another check.
"""

from __future__ import annotations

from server.rest.api_request.types import ApiRequest
from server.rest.plan.call import CallPlan, plan_call
from server.rest.plan.config import PlanConfig
from server.rest.plan.mutate import MutatePlan, plan_mutation
from server.rest.plan.read import ReadNode, ReadPlan, plan_read
from server.rest.schema_cache import SchemaCache

Plan = ReadPlan | MutatePlan | CallPlan


def plan(request: ApiRequest, cache: SchemaCache, config: PlanConfig) -> Plan:
    if request.action == "read":
        return plan_read(request, cache, config)
    if request.action == "call":
        return plan_call(request, cache, config)
    return plan_mutation(request, cache, config)


__all__ = ["CallPlan", "MutatePlan", "Plan", "PlanConfig", "ReadNode", "ReadPlan", "plan"]
