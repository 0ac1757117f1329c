"""The pure rules engine: data in, verdict + explanation + citations out.

Nothing in this package knows about Flask, HTTP or the database. The table store hands
it a :class:`~companion.referee.table.TableState` and an action; it answers with the event
to record or raises :class:`~companion.referee.rules.Refused` naming the rule that forbids
the action. Replaying the recorded events through :func:`~companion.referee.table.apply`
rebuilds the state exactly.
"""
