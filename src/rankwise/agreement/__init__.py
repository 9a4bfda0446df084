"""Agreement between rankings: Kendall's tau and tau-b, tau_AP and rank-biased overlap, per
query between two runs, and between two orderings of systems."""
from .agree import agreement, system_agreement

__all__ = ["agreement", "system_agreement"]
