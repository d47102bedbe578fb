"""Every detector's cheap gate (`patterns.gate_open`) asked in one pass over the text.

A gate is open when one of the detector's needles is a substring of the lower-cased text. Asked
one detector at a time that is a few dozen `in` tests and alternation searches per text (most of
what memvet's own layer cost on ordinary prompts with a path or a secret word in them); one
Aho-Corasick pass over every needle answers all of them at once. Same answer either way; without
pyahocorasick each gate is asked on its own. Built on first use: nothing happens at import.
"""

from __future__ import annotations

from memvet.store.redaction.patterns import Detector, gate_open


class GateIndex:
    """`open(lowered)`: a bit mask, bit i set when detector i's gate is open on `lowered`."""

    def __init__(self, detectors: tuple[Detector, ...]) -> None:
        self.detectors = detectors
        self._automaton = None
        self._always = 0  # detectors with an empty needle: open on every text
        self._chars: dict[str, int] = {}
        self._built = False

    def _build(self) -> None:
        self._built = True
        try:
            import ahocorasick
        except ImportError:
            return
        by_needle: dict[str, int] = {}
        for index, detector in enumerate(self.detectors):
            for needle in detector.needles:
                if not needle:
                    self._always |= 1 << index
                elif len(needle) == 1:  # "." or "$": one `in` each, not one hit per occurrence
                    self._chars[needle] = self._chars.get(needle, 0) | 1 << index
                else:
                    by_needle[needle] = by_needle.get(needle, 0) | 1 << index
        automaton = ahocorasick.Automaton()
        for needle, bits in by_needle.items():
            automaton.add_word(needle, bits)
        automaton.make_automaton()
        self._automaton = automaton

    def open(self, lowered: str) -> int:
        if not self._built:
            self._build()
        if self._automaton is None:
            return sum(1 << i for i, d in enumerate(self.detectors) if gate_open(d, lowered))
        mask = self._always
        for char, bits in self._chars.items():
            if char in lowered:
                mask |= bits
        for _end, bits in self._automaton.iter(lowered):
            mask |= bits
        return mask
