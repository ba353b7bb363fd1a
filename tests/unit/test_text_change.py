"""Statements of change: which say that something changed, which say how things stand now,
and what a change names."""

from __future__ import annotations

import pytest

from langmemcore.text.change import announces_change, states_present


@pytest.mark.parametrize(
    ("text", "changes"),
    [
        ("I quit the bakery in April.", True),
        ("We moved to Hamburg in January.", True),
        ("I no longer eat meat.", True),
        ("I don't play with them any more.", True),
        ("Luna passed away in July.", True),
        ("My old phone got stolen on the bus.", True),
        ("I dropped the evening classes.", True),
        ("The wedding is off.", True),
        ("The diet's over, I eat bread again.", True),
        ("Our trip to Oslo was postponed.", True),
        ("I put the guitar away for good.", True),
        ("And I have the work permit now. No more student visa.", True),
        ("The Camino didn't happen, I did my ankle in.", True),
        ("I'm out of Oerlikon finally, we bought a place in Winterthur.", True),
        ("Mia and I are back together since the spring.", True),
        ("Scratch that, we're not going to Crete.", True),
        ("I turned down the Vienna job in December, we're staying here.", True),
        ("I declined the offer from the Lyon school.", True),
        ("I work as a pastry chef.", False),
        ("We adopted a puppy called Bolt.", False),
        ("We're off to Spain tomorrow.", False),
        ("I took the kids to the park.", False),
        ("It's hard, but I'm not giving up.", False),
        ("It'll all be worth it in the end.", False),
        ("Did you quit the choir?", False),
    ],
)
def test_announces_change(text: str, changes: bool) -> None:
    assert announces_change(text) is changes


@pytest.mark.parametrize(
    ("text", "present"),
    [
        ("I joined the Margate sea swimmers.", True),
        ("I have a real flat now, in Altona.", True),
        ("My shoulder's finally fixed.", True),
        ("We took in a cat from the shelter.", True),
        ("I'm translating these days, mostly contracts.", True),
        ("I've been seeing someone since March, he's a paramedic.", True),
        ("We opened our own practice in Niebüll.", True),
        ("Since you asked, the train was late again.", False),
        ("I work as a pastry chef.", False),
        ("Are you still in Tooting now?", False),
        ("I'm not new to this.", False),
    ],
)
def test_states_present(text: str, present: bool) -> None:
    assert states_present(text) is present
