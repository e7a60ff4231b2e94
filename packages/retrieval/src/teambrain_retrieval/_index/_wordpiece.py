"""A BERT uncased WordPiece tokenizer read from a ``tokenizer.json``, in plain Python.

It reproduces the Hugging Face ``tokenizers`` pipeline that all-MiniLM-L6-v2 uses
(BertNormalizer with lowercase and accent stripping, BertPreTokenizer, WordPiece with ``##``
continuations, ``[CLS] … [SEP]``, truncation at the end). Doing it here avoids the
``tokenizers`` wheel and the Hub client it depends on; a test pins its output to ids produced by
``tokenizers`` itself.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path


class TokenizerError(ValueError):
    """The tokenizer file is not a WordPiece tokenizer we can read."""


def _is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPieceTokenizer:
    """``encode(text, max_tokens)`` → token ids with ``[CLS]``/``[SEP]``, like ``tokenizers``."""

    def __init__(self, tokenizer_json: Path) -> None:
        try:
            spec = json.loads(Path(tokenizer_json).read_text(encoding="utf-8"))
            model = spec["model"]
            if model.get("type") != "WordPiece":
                raise TokenizerError(f"{tokenizer_json}: not a WordPiece tokenizer")
            self.vocab: dict[str, int] = model["vocab"]
            self.unknown = self.vocab[model.get("unk_token", "[UNK]")]
            self.prefix: str = model.get("continuing_subword_prefix", "##")
            self.max_word_chars = int(model.get("max_input_chars_per_word", 100))
            self.cls = self.vocab["[CLS]"]
            self.sep = self.vocab["[SEP]"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            if isinstance(exc, TokenizerError):
                raise
            raise TokenizerError(f"{tokenizer_json}: unreadable ({exc})") from None
        self._cache: dict[str, list[int]] = {}

    @staticmethod
    def _normalise(text: str) -> str:
        out = []
        for char in text:
            if char in ("\x00", "\ufffd") or _is_control(char):
                continue
            if char.isspace():
                out.append(" ")
            elif _is_cjk(ord(char)):
                out.append(f" {char} ")
            else:
                out.append(char)
        decomposed = unicodedata.normalize("NFD", "".join(out))
        return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").lower()

    @staticmethod
    def _words(text: str) -> Iterator[str]:
        for chunk in text.split():
            start = 0
            for index, char in enumerate(chunk):
                if _is_punctuation(char):
                    if index > start:
                        yield chunk[start:index]
                    yield char
                    start = index + 1
            if start < len(chunk):
                yield chunk[start:]

    def _word_ids(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids: list[int] = []
        if len(word) > self.max_word_chars:
            ids = [self.unknown]
        else:
            start = 0
            while start < len(word):
                end = len(word)
                piece_id = None
                while start < end:
                    piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                    piece_id = self.vocab.get(piece)
                    if piece_id is not None:
                        break
                    end -= 1
                if piece_id is None:
                    ids = [self.unknown]
                    break
                ids.append(piece_id)
                start = end
        if len(self._cache) < 100_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str, max_tokens: int = 256) -> list[int]:
        """Token ids of ``text`` framed by ``[CLS]`` and ``[SEP]``, at most ``max_tokens``."""
        budget = max_tokens - 2
        ids: list[int] = []
        for word in self._words(self._normalise(text)):
            ids.extend(self._word_ids(word))
            if len(ids) >= budget:
                break
        return [self.cls, *ids[:budget], self.sep]
