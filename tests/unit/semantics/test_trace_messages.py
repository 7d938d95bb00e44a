"""semantics/trace.py: each step of a counterexample names its channel messages
(rendezvous: one message sender -> receiver; buffered: a send half and a receive half
with the message read from the channel's contents), for message sequence charts."""

from __future__ import annotations

from pathlib import Path

from bridge import api
from bridge.ir import Message, TraceStep

MODELS = Path(__file__).resolve().parents[2] / "models" / "report"


def _steps(path: Path, assertion: int) -> list[TraceStep]:
    [verdict] = api.check(api.load_model(str(path)), assertion)
    assert verdict.lasso is not None
    return [*verdict.lasso.prefix.steps, *verdict.lasso.loop]


def test_promela_rendezvous_and_buffered_messages() -> None:
    steps = _steps(MODELS / "pingpong.pml", 1)
    rendezvous = [s for s in steps if s.text == "c!ping; c?ping"]
    sends = [s for s in steps if s.text == "d!pong,k"]
    receives = [s for s in steps if s.text == "d?pong,got"]
    assert rendezvous and sends and receives
    # mtype ping is 2 and pong 1, as SPIN numbers them
    assert {s.messages for s in rendezvous} == {
        (Message("c", "Pinger[0]", "Ponger[1]", (2,)),)}
    for send in sends:
        [message] = send.messages
        assert (message.channel, message.sender, message.receiver) == ("d", "Ponger[1]", None)
        # the message is k's new value, as the step before set it
        assert message.values[0] == 1
    for receive in receives:
        [message] = receive.messages
        assert (message.channel, message.sender, message.receiver) == ("d", None, "Pinger[0]")
        got = dict((name, new) for name, _old, new in receive.changes).get("got")
        assert got is None or message.values == (1, got)
    assert all(not s.messages for s in steps if "%" in s.text)


def test_csp_rendezvous_buffered_and_barrier() -> None:
    steps = _steps(MODELS / "channels_and_barrier.csp", 1)
    by_event = {s.event: s for s in steps}
    assert by_event["c.1"].messages == (Message("c", "Sender()", "Receiver()", (1,)),)
    assert by_event["b!2"].messages == (Message("b", "Sender()", None, (2,)),)
    assert by_event["b?2"].messages == (Message("b", None, "Receiver()", (2,)),)
    barrier = by_event["go"]
    assert set(barrier.processes) == {"Left()", "Right()"} and barrier.messages == ()
