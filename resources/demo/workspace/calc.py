"""A tiny calculator: the demo agent's project."""


def add(a, b):
    return a + b


def average(values):
    # Bug for the agent to fix: integer division and no guard for an empty list.
    return sum(values) // len(values)
