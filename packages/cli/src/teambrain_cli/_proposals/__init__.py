"""The front end of proposals: hand-written drafts (``tb propose --draft``) and what ``tb propose``
and ``tb retire`` share (the base a proposal starts from, telling the user where it went)."""
