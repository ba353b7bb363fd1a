"""Pure SQL builder of the read that finds an observation's predecessor in its thread
(see :attr:`langmemcore.config.ConstructionConfig.thread_gap`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

from sqlalchemy import Interval, Select, bindparam, select

from langmemcore.storage.models import Observation
from langmemcore.storage.prepared import Prepared, text_param, time_param

__all__ = ["observation_before"]


@cache
def _observation_before() -> Select:
    moment = time_param("event_time")
    return (
        select(Observation.content, Observation.speaker)
        .where(
            Observation.namespace == text_param("namespace"),
            Observation.event_time <= moment,
            Observation.event_time >= moment - bindparam("gap", type_=Interval),
        )
        .order_by(Observation.event_time.desc(), Observation.id.desc())
        .limit(1)
    )


def observation_before(namespace: str, event_time: datetime, gap: timedelta) -> Prepared:
    """(``content``, ``speaker``) of the namespace's latest observation at or before
    ``event_time`` and at most ``gap`` before it (among equal times, the last stored).
    """
    values = {"namespace": namespace, "event_time": event_time, "gap": gap}
    return Prepared(_observation_before(), values)
