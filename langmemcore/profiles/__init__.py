"""The semantic layer: person profiles of aspects with their current values and history."""

from langmemcore.profiles.aspects import ASPECTS, SINGLE_VALUED, AspectStatement, is_single_valued

__all__ = ["ASPECTS", "SINGLE_VALUED", "AspectStatement", "is_single_valued"]
