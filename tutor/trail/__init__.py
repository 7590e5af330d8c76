"""How the work was made: the authorship trail of the code editors.

The editors (snippet, code exercise) send what changed in small batches (static/js/trail.js);
runs and submissions are recorded by their views as moments. A teacher replays a student's
trail step by step, watches their code live, and the student sees their own (docs/trail.md).
"""
