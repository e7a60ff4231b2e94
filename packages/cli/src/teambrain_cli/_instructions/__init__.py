"""The instruction files agent tools read (CLAUDE.md, AGENTS.md, GEMINI.md, Cursor, Windsurf and
Cline rules, Copilot instructions, a Cline memory bank, Claude Code's auto memory):

- ``tb import`` (:func:`importer.import_instructions`): split them into memory-sized
  candidates (classed, tagged, checked like any candidate) in the review queue;
- ``tb export`` (:mod:`export`): the brain's required memories written into a marked section
  of AGENTS.md or a rules file, for tools that read no MCP server; ``tb lint`` says when that
  section is out of step.
"""
